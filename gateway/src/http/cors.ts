// Cross-origin access for partner websites (CORS_ORIGINS). Browsers call the API only through
// their own token proxy, so no cookie or credential mode is offered: the allowlist is the only
// switch, and with it empty no CORS header is sent at all. The `cors` package answers
// preflights per the Fetch standard (204, Access-Control-Allow-*, Vary: Origin).
import cors from 'cors';
import type { RequestHandler } from 'express';

/**
 * What a partner's script may send beside the CORS-safelisted headers: the member writes'
 * Idempotency-Key and If-Match, and If-None-Match for a member's 304 (a browser refuses to send
 * a request whose preflight did not name every header it carries).
 */
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-Request-Id',
  'Idempotency-Key',
  'If-Match',
  'If-None-Match',
];

/** What a partner's script may read from an answer, besides the CORS-safelisted headers. */
const EXPOSED_HEADERS = [
  'X-Request-Id',
  // A member's version, for the If-Match of its next update.
  'ETag',
  'X-Read-Model',
  'X-Data-Age',
  'Retry-After',
  'WWW-Authenticate',
  'RateLimit-Policy',
  'RateLimit',
  ...['Minute', 'Hour', 'Day'].flatMap((window) => [
    `X-RateLimit-Limit-${window}`,
    `X-RateLimit-Remaining-${window}`,
  ]),
];

export function corsFor(origins: readonly string[]): RequestHandler | null {
  if (origins.length === 0) return null;
  return cors({
    origin: [...origins],
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    // Browsers cap this anyway (Chromium at 2 h); 10 min keeps a changed allowlist effective soon.
    maxAge: 600,
  });
}
