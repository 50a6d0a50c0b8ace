// helmet's response headers, worked out once. With its default (static) options every response
// gets the same headers, yet helmet walks thirteen middlewares per request and rebuilds the
// Content-Security-Policy string each time; on the member detail that was more of the gateway's
// CPU than the answer's own query (docs/decisions/0005-fast-hot-path.md). helmet stays the
// source of the values: they are read from what it sets on a probe response at start-up. Beside
// them, every answer is Cache-Control: no-store unless its route says otherwise.
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

export function securityHeaders(): RequestHandler {
  const request = new IncomingMessage(new Socket());
  const probe = new ServerResponse(request);
  let finished = false;
  helmet()(request, probe, () => (finished = true));
  // A helmet whose middleware became asynchronous or per-request would be copied wrongly.
  if (!finished) throw new Error('helmet did not set its headers synchronously');
  const headers = new Map(
    Object.entries(probe.getHeaders()).map(([name, value]) => [name, String(value)]),
  );
  // Nearly every answer carries partner data (members, figures, errors naming a request): no
  // browser or shared cache may keep one. A 304 still answers a member's If-None-Match. The
  // documentation, which holds none, states its own policy (features/docs/docs.routes.ts).
  headers.set('cache-control', 'no-store');
  return (_req, res, next) => {
    res.setHeaders(headers);
    next();
  };
}
