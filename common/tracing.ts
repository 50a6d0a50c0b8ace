// OpenTelemetry traces, loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set (common/traces.ts
// decides): with it unset, no module of this file's imports is ever evaluated, and the gateway's
// hot path pays nothing. The exporter, sampler and resource read the standard OTEL_* variables
// themselves (docs/operations/run.md, "Traces").
import { IncomingMessage } from 'node:http';
import { register } from 'node:module';
import {
  context,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Context,
  type Link,
  type TextMapGetter,
  type TextMapPropagator,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { core, NodeSDK, tracing as sdkTracing } from '@opentelemetry/sdk-node';
import { PrismaInstrumentation } from '@prisma/instrumentation';
import type { Tracing } from './tracing-interface.js';

/**
 * The ESM loader hook that lets the instrumentations patch what an `import` loads; limited to the
 * packages they patch, so no other module of the process is rewritten on load.
 */
const HOOKED_PACKAGES = ['express', 'pg', 'ioredis'];

/** Starts the SDK; every module imported afterwards is instrumented. */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv): Tracing {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, {
    data: { include: HOOKED_PACKAGES },
  });
  const trustIncoming = env.OTEL_TRUST_INCOMING === 'true';
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME, when set, names the process instead (the SDK reads it when none is given).
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName }),
    traceExporter: withoutQuotedValues(new OTLPTraceExporter()),
    textMapPropagator: new IncomingOnlyPropagator(trustIncoming),
    // Traces only: metrics are Prometheus' (METRICS_PORT), logs are the JSON lines on stdout;
    // left to the SDK, both would be sent to the OTLP endpoint too.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      // Health probes and metrics scrapes would be most of the traces and tell nothing.
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)\b/.test(req.url ?? ''),
        // A query string can hold a member's name or phone (`search`), and a partner's webhook URL
        // a token of theirs: a span keeps the names of its parameters, never their values, as the
        // log line keeps only the route. The instrumentation's own redaction knows a few names.
        requestHook: (span, request) => {
          if (request instanceof IncomingMessage) {
            const [path = '', query] = (request.url ?? '').split('?');
            if (query) span.setAttribute('url.query', parameterNamesOf(query));
            const template = signInTemplateOf(path);
            if (template) span.setAttribute('url.path', template);
            // A partner's trace is not ours to join unless the operator says so: the request
            // starts a trace of its own, linked to the one it names.
            const link = trustIncoming ? undefined : linkTo(String(request.headers.traceparent));
            if (link) span.addLink(link);
            return;
          }
          // An outgoing request (a webhook try): the partner's URL as scheme and Host header
          // (host and any port that is not the default) only; its path and query may carry
          // tokens of theirs.
          const host = String(request.getHeader('host'));
          span.setAttribute('url.full', `${request.protocol}//${host}`);
        },
      }),
      // One span per route handler, not one per middleware layer (a dozen a request).
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      new PgInstrumentation(),
      // The command alone: its keys and arguments carry client keys, addresses and cached values.
      new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
      new PrismaInstrumentation(),
    ],
  });
  sdk.start();
  const tracer = trace.getTracer('dashboard-partner-api');
  return {
    traceId: () => trace.getActiveSpan()?.spanContext().traceId,
    traceParent() {
      const active = trace.getActiveSpan()?.spanContext();
      // A trace the sampler dropped is never received: nothing could follow a link to it.
      if (!active || !(active.traceFlags & TraceFlags.SAMPLED)) return undefined;
      return `00-${active.traceId}-${active.spanId}-01`;
    },
    async inSpan(name, kind, attributes, work) {
      const spanKind = kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL;
      const span = tracer.startSpan(name, { kind: spanKind, attributes });
      try {
        return await context.with(trace.setSpan(context.active(), span), work);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: String((error as Error).message) });
        throw error;
      } finally {
        span.end();
      }
    },
    addLinks(traceParents) {
      const links = traceParents.flatMap((parent) => {
        const link = linkTo(parent);
        return link ? [link] : [];
      });
      if (links.length > 0) trace.getActiveSpan()?.addLinks(links);
    },
    // Sends the spans still buffered: the exporter batches them every few seconds.
    shutdown: () => sdk.shutdown(),
  };
}

/** A link to the span a stored `traceparent` (version 00, as traceParent writes it) names. */
function linkTo(traceParent: string): Link | undefined {
  const [, traceId, spanId, flags] =
    /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(traceParent) ?? [];
  if (!traceId || !spanId || !flags) return undefined;
  const spanContext = { traceId, spanId, traceFlags: parseInt(flags, 16), isRemote: true };
  return isSpanContextValid(spanContext) ? { context: spanContext } : undefined;
}

/**
 * W3C trace context, read from incoming requests only when `trusted` (OTEL_TRUST_INCOMING), and
 * never written into outgoing ones: a webhook try carries no trace header of ours, and a
 * partner cannot place our spans in a trace of theirs. Links between our own processes are
 * stored `traceparent`s (addLinks), which need no propagation.
 */
class IncomingOnlyPropagator implements TextMapPropagator {
  private readonly w3c = new core.W3CTraceContextPropagator();

  constructor(private readonly trusted: boolean) {}

  inject(): void {}

  extract(active: Context, carrier: unknown, getter: TextMapGetter): Context {
    return this.trusted ? this.w3c.extract(active, carrier, getter) : active;
  }

  fields(): string[] {
    return [];
  }
}

/** Duplicate-key messages that quote the row's values (MySQL, MariaDB). */
const DUPLICATE_ENTRY = /Duplicate entry '.*' for key '([^']*)'/s;
/** Any quoted literal: a value of the row a failed statement wrote, or of a parameter. */
const QUOTED = /'(?:[^'\\]|\\.)*'/g;

/**
 * An error's message as a span may keep it: a duplicate key names its constraint only, and any
 * other quoted literal is replaced, so no row's value leaves in a span.
 */
export function withoutQuotes(message: string): string {
  const duplicate = DUPLICATE_ENTRY.exec(message);
  if (duplicate) return `Duplicate entry for key '${duplicate[1]}'`;
  return message.replace(QUOTED, "'?'");
}

/**
 * The exporter, given spans whose error messages (status, exception events, from every
 * instrumentation) keep no quoted value: the last place every span passes.
 */
function withoutQuotedValues(exporter: sdkTracing.SpanExporter): sdkTracing.SpanExporter {
  return {
    export(spans, done) {
      for (const span of spans) {
        if (span.status.message) span.status.message = withoutQuotes(span.status.message);
        for (const event of span.events) {
          const attributes = event.attributes ?? {};
          for (const name of ['exception.message', 'exception.stacktrace']) {
            const value = attributes[name];
            if (typeof value === 'string') attributes[name] = withoutQuotes(value);
          }
        }
      }
      exporter.export(spans, done);
    },
    shutdown: () => exporter.shutdown(),
    ...(exporter.forceFlush ? { forceFlush: () => exporter.forceFlush!() } : {}),
  };
}

/**
 * The console's and the portal's sign-in link routes (`/console/sign-in/:token`,
 * `/portal/sign-in/:token`, gateway/src/pages/sign-in.tsx): their path holds a token that signs
 * someone in, so a span keeps the route's template instead, as the log line does. Matched on the
 * raw path, as Express matches routes (any case, a trailing slash), so a request refused before
 * its route (a form check) is covered too.
 */
const SIGN_IN_PATH = /^\/(console|portal)\/sign-in\/[^/]*\/?$/i;
function signInTemplateOf(path: string): string | null {
  const area = SIGN_IN_PATH.exec(path)?.[1];
  return area ? `/${area.toLowerCase()}/sign-in/:token` : null;
}

/** `search=Ay%C5%9Fe&limit=5` as `search=&limit=`. */
function parameterNamesOf(query: string): string {
  return [...new URLSearchParams(query).keys()].map((name) => `${name}=`).join('&');
}
