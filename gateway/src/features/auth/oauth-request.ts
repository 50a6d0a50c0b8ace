// What /oauth/token does to a request before the OAuth library and the throttle read it, so that
// standard clients are understood as RFC 6749 writes them.
import type { RequestHandler } from 'express';
import { AppError } from '../../http/errors.js';

/** application/x-www-form-urlencoded decoding of one value; null when it is not valid encoding. */
function formDecode(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/**
 * RFC 6749 §2.3.1: the client id and secret are form-urlencoded before they go into the Basic
 * header, so `ck_` may arrive as `ck%5F`. The header is rewritten with the decoded pair, which
 * the library (and the throttle's client key) then read as plain Basic. Our keys and secrets
 * hold no `%`, `+` or `:`, so a client that does not encode (curl -u) is read the same way.
 */
export const decodeBasicCredentials: RequestHandler = (req, _res, next) => {
  const match = /^Basic\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  if (!match?.[1]) return next();
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return next();
  const id = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  // An id holding ":" cannot travel in Basic; left as sent, it simply fails as invalid_client.
  if (id !== null && secret !== null && !id.includes(':')) {
    req.headers.authorization = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  }
  next();
};

/**
 * RFC 6749 §3.2: "Request and response parameters MUST NOT be included more than once." The form
 * parser turns a repeated field into an array, which the library cannot read; it is refused here.
 */
export const refuseRepeatedParameters: RequestHandler = (req, _res, next) => {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const repeated = Object.keys(body).filter((name) => typeof body[name] !== 'string');
  if (repeated.length > 0) {
    throw new AppError({
      status: 400,
      code: 'VALIDATION_ERROR',
      message: `Invalid request: parameter included more than once: ${repeated.join(', ')}`,
    });
  }
  next();
};
