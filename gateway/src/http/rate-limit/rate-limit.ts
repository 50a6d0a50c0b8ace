// Per-client rate limits over three fixed windows, counted in Redis so every gateway instance
// shares them. See docs/decisions/0004-rate-limits.md.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  DAY,
  HOUR,
  MINUTE,
  rateLimit,
  type Logger as LibraryLogger,
  type RateLimitInfo,
  type RateLimitRequestHandler,
} from 'express-rate-limit';
import type { Redis } from 'ioredis';
import type { Config } from '../../../../common/config.js';
import type { Logger } from '../../../../common/logger.js';
import { authOf } from '../authenticate.js';
import { AppError } from '../errors.js';
import type { GatewayMetrics } from '../metrics.js';
import {
  rateLimitHeaders,
  retryAfterSeconds,
  WINDOW_NAMES,
  type WindowName,
  type WindowState,
} from './rate-limit-headers.js';
import { GatewayRedisStore } from './rate-limit-store.js';

const WINDOW_MS: Record<WindowName, number> = { minute: MINUTE, hour: HOUR, day: DAY };
const PROPERTY: Record<WindowName, string> = {
  minute: 'rateLimitMinute',
  hour: 'rateLimitHour',
  day: 'rateLimitDay',
};
const WARN_INTERVAL_MS = 10_000;

export interface RateLimitDeps {
  config: Config;
  redis: Redis;
  logger: Logger;
  metrics: GatewayMetrics;
}

export const rateLimitExceeded = (retryAfter: number) =>
  new AppError({
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: 'İstek sınırı aşıldı, lütfen daha sonra tekrar deneyin.',
    retryAfter,
  });

/** A Redis failure already counted and reported by the store's failure policy. */
class CounterUnavailable extends Error {
  override readonly name = 'CounterUnavailable';
}

const infoOf = (req: Request, name: WindowName) =>
  (req as unknown as Partial<Record<string, RateLimitInfo>>)[PROPERTY[name]];

function stateOf(name: WindowName, counted: { limit: number; used: number; resetTime?: Date }) {
  return {
    name,
    windowSeconds: WINDOW_MS[name] / 1000,
    limit: counted.limit,
    used: counted.used,
    resetTime: counted.resetTime ?? new Date(Date.now() + WINDOW_MS[name]),
  } satisfies WindowState;
}

/**
 * The guard's per-client handlers: one express-rate-limit instance per window (minute, hour, day,
 * in that order; each with its own RedisStore prefix and request property, as the library
 * requires), then one handler writing the headers of all three windows. The library's own
 * header options describe one limiter at a time, so the headers are written here instead.
 */
export function clientRateLimits(deps: RateLimitDeps): RequestHandler[] {
  const { rateLimit: limits, redis } = deps.config;
  const failOpen = limits.onRedisFailure === 'open';
  const defaults: Record<WindowName, number> = {
    minute: limits.perMinute,
    hour: limits.perHour,
    day: limits.perDay,
  };
  // Read from the client row on every request, so set-limits applies without a restart.
  const limitOf = (res: Response, name: WindowName) =>
    authOf(res).rateLimits[name] ?? defaults[name];
  const warn = throttle(WARN_INTERVAL_MS, (error: unknown, suppressed: number) =>
    deps.logger.warn(
      { err: error, suppressed },
      'rate-limit counters unreachable in Redis; requests pass without rate limits',
    ),
  );
  const onFailure = (error: unknown) => {
    deps.metrics.rateLimitStoreFailures.inc({ outcome: failOpen ? 'allowed' : 'refused' });
    if (!failOpen) {
      return new AppError({
        status: 503,
        code: 'SERVER_ERROR',
        message: 'Servis geçici olarak kullanılamıyor, lütfen daha sonra tekrar deneyin.',
        retryAfter: 5,
        cause: error,
      });
    }
    warn(error);
    return new CounterUnavailable('rate-limit store unreachable', { cause: error });
  };
  // The library's own messages (misconfiguration warnings) go to our log; its per-request
  // "allowing request without rate-limiting" is replaced by the throttled warning above.
  const libraryLogger: LibraryLogger = {
    warn: (error, message) => deps.logger.warn({ err: error }, message ?? 'express-rate-limit'),
    error: (error, message) => {
      if (!(error instanceof CounterUnavailable)) {
        deps.logger.error({ err: error }, message ?? 'express-rate-limit');
      }
    },
  };

  const limiters: RateLimitRequestHandler[] = WINDOW_NAMES.map((name, index) => {
    const previous = index > 0 ? WINDOW_NAMES[index - 1] : undefined;
    return rateLimit({
      windowMs: WINDOW_MS[name],
      limit: (_req, res) => limitOf(res, name),
      keyGenerator: (_req, res) => String(authOf(res).clientId),
      requestPropertyName: PROPERTY[name],
      store: new GatewayRedisStore(deps.redis, `${redis.prefix}:rl:client:${name}:`, onFailure),
      standardHeaders: false,
      legacyHeaders: false,
      passOnStoreError: failOpen,
      // When an earlier window could not be counted the request already passes unlimited;
      // asking Redis again would only add failures to the same request.
      skip: (req) => previous !== undefined && infoOf(req, previous) === undefined,
      handler: (req, res, next) => void refuse(req, res, next, index).catch(next),
      logger: libraryLogger,
    });
  });

  // A refused request never reaches the handler after the limiters, so the 429 writes all three
  // windows' headers itself; the windows after the refusing one were not counted for it and are
  // read from Redis.
  async function refuse(req: Request, res: Response, next: NextFunction, refusedBy: number) {
    const key = String(authOf(res).clientId);
    const states = await Promise.all(
      WINDOW_NAMES.map(async (name, index) => {
        const info = infoOf(req, name);
        if (index <= refusedBy && info) return stateOf(name, info);
        const stored = await limiters[index]?.getKey(key);
        return stateOf(name, {
          limit: limitOf(res, name),
          used: stored?.totalHits ?? 0,
          resetTime: stored?.resetTime,
        });
      }),
    ).catch(() => null);
    const refusing = WINDOW_NAMES[refusedBy] ?? 'minute';
    const own = infoOf(req, refusing);
    // One clock for both, so the refusing window's t= and Retry-After agree.
    const now = Date.now();
    if (states) res.set(rateLimitHeaders(states, now));
    deps.metrics.rateLimitRejections.inc({ window: refusing });
    const known = states ?? (own ? [stateOf(refusing, own)] : []);
    next(rateLimitExceeded(retryAfterSeconds(known, now)));
  }

  const writeHeaders: RequestHandler = (req, res, next) => {
    const states: WindowState[] = [];
    for (const name of WINDOW_NAMES) {
      const info = infoOf(req, name);
      // Without counters (Redis away, failing open) there is nothing true to report.
      if (!info) return next();
      states.push(stateOf(name, info));
    }
    res.set(rateLimitHeaders(states));
    next();
  };

  return [...limiters, writeHeaders];
}

/** Calls `fn` at most once per interval, telling it how many calls were dropped since. */
function throttle<T>(intervalMs: number, fn: (value: T, suppressed: number) => void) {
  let last = -Infinity;
  let suppressed = 0;
  return (value: T) => {
    const now = Date.now();
    if (now - last < intervalMs) {
      suppressed += 1;
      return;
    }
    last = now;
    fn(value, suppressed);
    suppressed = 0;
  };
}
