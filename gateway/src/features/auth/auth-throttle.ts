// Throttle of the token endpoints against guessing (docs/decisions/0003-tokens.md): failed attempts
// are counted per IP address, and per client_key and IP address, in Redis, so every gateway
// instance shares the counts and a guesser cannot spread attempts over instances or over the three
// token endpoints. Never per client_key alone: whoever knows a key could then lock its partner out.
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, type Options } from 'express-rate-limit';
import type { RedisClient } from '#common/redis.js';
import { throttledLog, type ThrottledLog } from '#common/log-throttle.js';
import type { Logger } from '#common/logger.js';
import { toAppError } from '../../http/error-handler.js';
import { AppError } from '../../http/errors.js';
import { GatewayRedisStore } from '../../http/rate-limit/rate-limit-store.js';

const WINDOW_MS = 60_000;

/** The client key a token request speaks for, or null when it names none. */
export type ClientKeyOf = (req: Request) => Promise<string | null> | string | null;

/**
 * The handlers to put in front of a token endpoint, given how it names its client; `byQuery`:
 * naming it costs a query (a refresh token's owner), asked only of an address under its limit.
 */
export type AuthThrottle = (clientKeyOf: ClientKeyOf, byQuery?: boolean) => RequestHandler[];

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

/** Counts the request's failure in one dimension; the refusal to answer instead, if over. */
type CountFailure = () => Promise<AppError | null>;

/** The counts a throttled request's failure goes to (res.locals, set by the throttle). */
const failuresOf = (res: Response) => res.locals.authFailures as CountFailure[] | undefined;

/**
 * Counts a failed token request before it is answered, in every dimension its throttle named;
 * the 429 to answer instead when the count went over the limit, null otherwise. Only 4xx answers
 * count: failed attempts, not traffic. A 5xx (a database down) says nothing about the
 * credentials, so it must not lock the partner out after recovery; nor does a 429 (this
 * throttle's own, or the client's issuance limit).
 */
export async function countFailedAttempt(res: Response, status: number): Promise<AppError | null> {
  const counts = failuresOf(res);
  if (!counts || status < 400 || status >= 500 || status === 429) return null;
  res.locals.authFailures = undefined;
  const refusals = await Promise.all(counts.map((count) => count()));
  return refusals.find((refusal) => refusal !== null) ?? null;
}

/** Mounted before the error funnel: a failed JSON token request, counted before its answer. */
export const failedAttempts: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  countFailedAttempt(res, toAppError(error)?.status ?? 500).then(
    (refusal) => next(refusal ?? error),
    next,
  );
};

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
  // An address over the limit is refused on arrival, before its credentials cost anything. A
  // failure is counted once its credentials were checked (an HMAC, microseconds) and before it
  // is answered, atomically: of a burst of bad attempts sent at once, those counted past the
  // limit are answered 429, whether their secret was right or not, so no burst passes the limit.
  // Successes are never counted: a burst of good token requests from one address (partners
  // behind one proxy, a fleet renewing at once) is answered in full. The counting stays the
  // library's store (one fixed window per key, shared by every instance).
  const storeOf = (dimension: 'ip' | 'client-ip') => {
    const store = new GatewayRedisStore(
      deps.redis,
      `${deps.prefix}:auth-fail:${dimension}:`,
      (e) => e,
    );
    void store.init({ windowMs: WINDOW_MS } as Options);
    return store;
  };
  const stores = { ip: storeOf('ip'), clientIp: storeOf('client-ip') };

  /** A dimension's failures so far (none: undefined); null when Redis is away and `open`. */
  async function failuresSoFar(store: GatewayRedisStore, key: string) {
    try {
      return { key, failed: await store.get(key) };
    } catch (error) {
      unreachable(log, error);
      if (deps.onRedisFailure === 'closed') throw error;
      return null;
    }
  }

  const overLimit = (read: Awaited<ReturnType<typeof failuresSoFar>>) =>
    (read?.failed?.totalHits ?? 0) >= deps.failedAttemptsPerMinute;
  const ipOf = (req: Request) => ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');
  return (clientKeyOf, byQuery = false) => [
    async (req, res, next) => {
      const ip = ipOf(req);
      const ofClient = async () => {
        const clientKey = await clientKeyOf(req);
        return clientKey === null ? null : failuresSoFar(stores.clientIp, `${clientKey}@${ip}`);
      };
      // Both dimensions are read at once, in one round trip, unless naming the client costs a
      // query: then the address is read first, and one over its limit costs nothing more.
      const byIp = failuresSoFar(stores.ip, ip);
      const reads = byQuery
        ? [await byIp, overLimit(await byIp) ? null : await ofClient()]
        : await Promise.all([byIp, ofClient()]);
      const counts: CountFailure[] = [];
      for (const [store, read] of [
        [stores.ip, reads[0]],
        [stores.clientIp, reads[1]],
      ] as const) {
        if (!read) continue;
        if (overLimit(read)) {
          return next(tooManyFailedAttempts(secondsUntil(read.failed?.resetTime)));
        }
        counts.push(() => countFailure(store, read.key, deps.failedAttemptsPerMinute, log));
      }
      res.locals.authFailures = counts;
      next();
    },
  ];
}

async function countFailure(
  store: GatewayRedisStore,
  key: string,
  limit: number,
  log: ThrottledLog,
): Promise<AppError | null> {
  try {
    const counted = await store.increment(key);
    return counted.totalHits > limit
      ? tooManyFailedAttempts(secondsUntil(counted.resetTime))
      : null;
  } catch (error) {
    // The failure is answered as it is: a Redis away must not turn a 401 into a 500.
    unreachable(log, error);
    return null;
  }
}

function unreachable(log: ThrottledLog, error: unknown): void {
  log('warn', 'auth-throttle', { err: error }, 'failed-attempt counters unreachable in Redis');
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
