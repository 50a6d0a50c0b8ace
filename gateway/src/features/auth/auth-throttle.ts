// Throttle of the token endpoints against guessing (docs/decisions/0003-tokens.md): failed attempts
// are counted per IP address, and per client_key and IP address, in Redis, so every gateway
// instance shares the counts and a guesser cannot spread attempts over instances or over the three
// token endpoints. Never per client_key alone: whoever knows a key could then lock its partner out.
import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, type ClientRateLimitInfo, type Options } from 'express-rate-limit';
import type { RedisClient } from '../../../../common/redis.js';
import { throttledLog } from '../../../../common/log-throttle.js';
import type { Logger } from '../../../../common/logger.js';
import { AppError } from '../../http/errors.js';
import { GatewayRedisStore } from '../../http/rate-limit/rate-limit-store.js';

const WINDOW_MS = 60_000;

/** The client key a token request speaks for, or null when it names none. */
export type ClientKeyOf = (req: Request) => Promise<string | null> | string | null;

/** The handlers to put in front of a token endpoint, given how it names its client. */
export type AuthThrottle = (clientKeyOf: ClientKeyOf) => RequestHandler[];

export function tooManyFailedAttempts(retryAfter: number): AppError {
  return new AppError({
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: 'Çok fazla başarısız deneme. Lütfen daha sonra tekrar deneyin.',
    retryAfter,
  });
}

function secondsUntil(reset: Date | undefined): number {
  return reset ? Math.max(1, Math.ceil((reset.getTime() - Date.now()) / 1000)) : 60;
}

export function createAuthThrottle(deps: {
  redis: RedisClient;
  prefix: string;
  failedAttemptsPerMinute: number;
  /**
   * The operator's choice for an unreachable Redis (RATE_LIMIT_REDIS_FAILURE), as for the limits.
   */
  onRedisFailure: 'open' | 'closed';
  /** Store failures go here, as JSON once per 10 s, never raw on the console. */
  logger: Logger;
}): AuthThrottle {
  const log = throttledLog(deps.logger);
  // Failed attempts only, counted once they have failed: express-rate-limit counts every request
  // as it arrives and takes a success back when it ends, so a burst of good token requests from
  // one address (partners behind one proxy, a fleet renewing at once) would be refused while in
  // flight. A burst of bad ones can thus pass the limit once, by its size; the secrets are 256
  // bits, and the next request from that address is refused. The counting stays the library's
  // store (one fixed window per key, shared by every instance).
  const limiter = (
    dimension: 'ip' | 'client-ip',
    keyOf: (req: Request) => Promise<string | null>,
  ): RequestHandler => {
    const store = new GatewayRedisStore(
      deps.redis,
      `${deps.prefix}:auth-fail:${dimension}:`,
      (e) => e,
    );
    void store.init({ windowMs: WINDOW_MS } as Options);
    const countFailure = (key: string) =>
      store
        .increment(key)
        .catch((error: unknown) =>
          log(
            'warn',
            'auth-throttle',
            { err: error },
            'failed-attempt counters unreachable in Redis',
          ),
        );
    return async (req, res, next) => {
      const key = await keyOf(req);
      if (key === null) return next();
      let failed: ClientRateLimitInfo | undefined;
      try {
        failed = await store.get(key);
      } catch (error) {
        log(
          'warn',
          'auth-throttle',
          { err: error },
          'failed-attempt counters unreachable in Redis',
        );
        return next(deps.onRedisFailure === 'open' ? undefined : error);
      }
      if (failed && failed.totalHits >= deps.failedAttemptsPerMinute) {
        return next(tooManyFailedAttempts(secondsUntil(failed.resetTime)));
      }
      // Only 4xx answers count: failed attempts, not traffic. A 5xx (a database down) says
      // nothing about the credentials, so it must not lock the partner out after recovery; nor
      // does a 429 (this throttle's own, or the client's issuance limit).
      res.once('finish', () => {
        if (res.statusCode >= 400 && res.statusCode < 500 && res.statusCode !== 429) {
          void countFailure(key);
        }
      });
      next();
    };
  };

  const ipOf = (req: Request) => ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');
  return (clientKeyOf) => {
    // skip and keyGenerator both need the key; a refresh token costs a query to resolve.
    const resolved = new WeakMap<Request, Promise<string | null>>();
    const clientKeyAndIp = (req: Request) => {
      let key = resolved.get(req);
      if (!key) {
        key = Promise.resolve(clientKeyOf(req)).then((clientKey) =>
          clientKey === null ? null : `${clientKey}@${ipOf(req)}`,
        );
        resolved.set(req, key);
      }
      return key;
    };
    return [
      limiter('ip', (req) => Promise.resolve(ipOf(req))),
      limiter('client-ip', clientKeyAndIp),
    ];
  };
}

/** A string field of a parsed body, or null. */
export function bodyField(req: Request, field: string): string | null {
  const value = (req.body as Record<string, unknown> | undefined)?.[field];
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/** The client id of an RFC 6749 §2.3.1 request: HTTP Basic first, then the form field. */
export function oauthClientId(req: Request): string | null {
  const match = /^Basic\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  if (match?.[1]) {
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon > 0 ? decoded.slice(0, colon) : null;
  }
  return bodyField(req, 'client_id');
}
