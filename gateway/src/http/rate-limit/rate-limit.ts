// Per-client rate limits over three fixed windows, counted in Redis so every gateway instance
// shares them (client-limiter.ts counts; this file decides what a count means for the answer).
// See docs/decisions/0004-rate-limits.md.
import type { Response } from 'express';
import type { Config } from '#common/config.js';
import type { Logger } from '#common/logger.js';
import type { AuthContext } from '../../trust/access-tokens.js';
import { AppError } from '../errors.js';
import type { GatewayMetrics } from '../metrics.js';
import type { LimiterOutcome, Limits } from './client-limiter.js';
import { rateLimitHeaders, retryAfterSeconds } from './rate-limit-headers.js';

const WARN_INTERVAL_MS = 10_000;

export const rateLimitExceeded = (retryAfter: number) =>
  new AppError({
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: 'İstek sınırı aşıldı, lütfen daha sonra tekrar deneyin.',
    retryAfter,
  });

export interface RateLimitPolicy {
  /** The client's own numbers (read with its token, so set-limits applies), else the defaults. */
  limitsOf(auth: AuthContext): Limits;
  /** Writes the three windows' headers; throws the 429 when a window refused the request. */
  apply(res: Response, outcome: Extract<LimiterOutcome, { kind: 'counted' }>): void;
  /** Redis could not count: returns to pass unlimited (fail open) or throws the 503 (closed). */
  onStoreFailure(error: unknown): void;
}

/** A client's own numbers (read with its token, so set-limits applies), else the defaults. */
export function limitsOf(
  { rateLimits }: Pick<AuthContext, 'rateLimits'>,
  defaults: Config['rateLimit'],
): Limits {
  return {
    minute: rateLimits.minute ?? defaults.perMinute,
    hour: rateLimits.hour ?? defaults.perHour,
    day: rateLimits.day ?? defaults.perDay,
  };
}

export function createRateLimitPolicy(deps: {
  config: Config;
  logger: Logger;
  metrics: GatewayMetrics;
}): RateLimitPolicy {
  const { rateLimit: limits } = deps.config;
  const failOpen = limits.onRedisFailure === 'open';
  const warn = throttle(WARN_INTERVAL_MS, (error: unknown, suppressed: number) =>
    deps.logger.warn(
      { err: error, suppressed },
      'rate-limit counters unreachable in Redis; requests pass without rate limits',
    ),
  );
  return {
    limitsOf: (auth) => limitsOf(auth, limits),

    apply(res, { refusedBy, states }) {
      // One clock for the headers and Retry-After, so the refusing window's t= and it agree.
      const now = Date.now();
      res.set(rateLimitHeaders(states, now));
      if (refusedBy === null) return;
      deps.metrics.rateLimitRejections.inc({ window: refusedBy });
      throw rateLimitExceeded(retryAfterSeconds(states, now));
    },

    onStoreFailure(error) {
      deps.metrics.rateLimitStoreFailures.inc({ outcome: failOpen ? 'allowed' : 'refused' });
      if (!failOpen) {
        throw new AppError({
          status: 503,
          code: 'SERVER_ERROR',
          message: 'Servis geçici olarak kullanılamıyor, lütfen daha sonra tekrar deneyin.',
          retryAfter: 5,
          cause: error,
        });
      }
      // Without counters there is nothing true to report: no rate-limit headers.
      warn(error);
    },
  };
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
