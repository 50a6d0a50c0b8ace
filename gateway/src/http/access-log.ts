// One structured log line per request, and its observation in the request histogram. Fields are
// chosen, never copied from the request: no header, query or body reaches the line, so no token
// or secret can. A failure's error travels in the same line (the error handler leaves it in
// res.locals), so a request id appears in exactly one line.
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../../../common/logger.js';
import { tracing } from '../../../common/traces.js';
import type { AuthContext } from './authenticate.js';
import type { GatewayMetrics } from './metrics.js';

/**
 * The route template a request matched ("/api/v1/members/:id", never the raw URL with its ids),
 * or "unmatched". Every route is registered with its full path and no router is mounted under a
 * path (app.ts), so the matched route's own path is the template. Nothing is stored on the
 * request for it: a property on every request object slows reads (figures: docs/decisions/0005).
 */
export function routeTemplateOf(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  return typeof route?.path === 'string' ? route.path : 'unmatched';
}

/** The error handler leaves a 5xx's cause here for the request's one log line. */
export function recordRequestError(res: Response, error: unknown): void {
  res.locals.error = error;
}

export function accessLog(logger: Logger, metrics: GatewayMetrics): RequestHandler {
  // The ordinary line holds only the fields chosen below, none of them a credential, so it skips
  // the redaction walk that every other line pays; a failure's line carries an error and keeps it.
  const plain = logger.child({}, { redact: [] });
  // Decided once: with tracing off, a request pays no call for a trace id it would not have.
  const traces = tracing();
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // Read here, inside the request's server span; the close event below runs outside it.
    const traceId = traces?.traceId();
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeTemplateOf(req);
      // A client that hung up before the answer left no status of ours; 499 as nginx logs it.
      const status = res.writableFinished ? res.statusCode : 499;
      metrics.requestDuration.observe({ method: req.method, route, status }, seconds);
      const auth = res.locals.auth as AuthContext | undefined;
      const error = res.locals.error as unknown;
      const line = {
        request_id: res.locals.requestId as string,
        // Undefined with tracing off: pino leaves the field out of the line.
        trace_id: traceId,
        client_id: auth?.clientId,
        client_key: auth?.clientKey,
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
