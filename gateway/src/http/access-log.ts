// One structured log line per request, its observation in the request histogram and its count in
// the usage reports (usage-counter.ts, per client, which the histogram has no label for). Fields are
// chosen, never copied from the request: no header, query or body reaches the line, so no token
// or secret can. A failure's error travels in the same line (the error handler leaves it in
// res.locals), so a request id appears in exactly one line.
import type { Request, RequestHandler, Response } from 'express';
import { NO_CLIENT } from '#api/usage/usage-cells.js';
import type { Logger } from '#common/logger.js';
import { tracing } from '#common/traces.js';
import type { GatewayMetrics } from './metrics.js';
import { NO_USAGE_COUNTER, type UsageCounter } from './usage-counter.js';

/**
 * The route template a request matched ("/api/v1/members/:id", never the raw URL with its ids),
 * or null. Every route is registered with its full path and no router is mounted under a path
 * (app.ts), so the matched route's own path is the template. Nothing is stored on the request
 * for it: a property on every request object slows reads (figures: docs/decisions/0005).
 */
function routeTemplateOf(req: Request): string | null {
  const route = req.route as { path?: unknown } | undefined;
  return typeof route?.path === 'string' ? route.path : null;
}

/**
 * The client a request is logged and counted under: set once its bearer token, or at the token
 * endpoints its credentials, are verified; before its limits are applied, so a 429 is its
 * client's too. Absent for a request no client authenticated.
 */
export interface RequestClient {
  clientId: number;
  clientKey: string;
}

export function identifyClient(res: Response, client: RequestClient): void {
  res.locals.client = client;
}

/**
 * Whether a request is counted in usage reports: the API's paths and the standard token
 * endpoint, matched or not; not the health probes nor stray paths outside the API.
 */
function isCounted(url: string): boolean {
  if (url.startsWith('/api/v1')) return url.length === 7 || '/?'.includes(url.charAt(7));
  return url.startsWith('/oauth/token');
}

/** The error handler leaves a 5xx's cause here for the request's one log line. */
export function recordRequestError(res: Response, error: unknown): void {
  res.locals.error = error;
}

export function accessLog(
  logger: Logger,
  metrics: GatewayMetrics,
  usage: UsageCounter,
): RequestHandler {
  // The ordinary line holds only the fields chosen below, none of them a credential, so it skips
  // the redaction walk that every other line pays; a failure's line carries an error and keeps it.
  const plain = logger.child({}, { redact: [] });
  // USAGE_COUNTING=off: not even the path check and the header read per request.
  const counting = usage !== NO_USAGE_COUNTER;
  // Decided once: with tracing off, a request pays no call for a trace id it would not have.
  const traces = tracing();
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // Read here, inside the request's server span; the close event below runs outside it.
    const traceId = traces?.traceId();
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const matched = routeTemplateOf(req);
      const route = matched ?? 'unmatched';
      // A client that hung up before the answer left no status of ours; 499 as nginx logs it.
      const status = res.writableFinished ? res.statusCode : 499;
      metrics.requestDuration.observe({ method: req.method, route, status }, seconds);
      const client = res.locals.client as RequestClient | undefined;
      if (counting && isCounted(req.url)) {
        // Bytes of the body as declared: every answer of the API states its length.
        const bytesOut = Number(res.getHeader('content-length') ?? 0) || 0;
        const clientId = client?.clientId ?? NO_CLIENT;
        usage.count(clientId, req.method, matched, status, seconds * 1000, bytesOut);
      }
      const error = res.locals.error as unknown;
      const line = {
        request_id: res.locals.requestId as string,
        // Undefined with tracing off: pino leaves the field out of the line.
        trace_id: traceId,
        client_id: client?.clientId,
        client_key: client?.clientKey,
        method: req.method,
        route,
        status,
        duration_ms: Math.round(seconds * 1e4) / 10,
        ...(error === undefined ? {} : { err: error }),
      };
      if (status >= 500) logger.error(line, 'request failed');
      else plain.info(line, 'request');
    });
    next();
  };
}
