// The limit on successful token issuance per client (TOKEN_ISSUE_PER_MINUTE, decision 0003):
// every pair costs a row in api_tokens, so a client that asks in a loop is refused before its
// credentials become a token. A client already at its limit is refused before its secret is
// checked (check), and an issuance is counted only once the credentials or the refresh token
// proved good and current (count), so nobody but the client itself can use the limit up.
// The counting is rate-limit-redis's fixed window (the store the failed-attempt throttle uses),
// under the client's hash tag, shared by every gateway.
import type { ClientRateLimitInfo, Options } from 'express-rate-limit';
import type { RedisClient } from '#common/redis.js';
import type { ThrottledLog } from '#common/log-throttle.js';
import { AppError, serviceUnavailable } from '../../http/errors.js';
import { GatewayRedisStore } from '../../http/rate-limit/rate-limit-store.js';

const WINDOW_MS = 60_000;

export interface IssueLimit {
  /** Rejects with 429 when the client is at its limit; counts nothing. */
  check(clientId: number): Promise<void>;
  /** Counts one issuance for the client; rejects with 429 past the limit. */
  count(clientId: number): Promise<void>;
}

export function tooManyTokens(retryAfter: number): AppError {
  return new AppError({
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: 'Bu dakika için belirteç alma sınırı aşıldı. Lütfen daha sonra tekrar deneyin.',
    retryAfter,
  });
}

export function createIssueLimit(deps: {
  redis: RedisClient;
  prefix: string;
  perMinute: number;
  /** The operator's choice for an unreachable Redis (RATE_LIMIT_REDIS_FAILURE). */
  onRedisFailure: 'open' | 'closed';
  log: ThrottledLog;
}): IssueLimit {
  const store = new GatewayRedisStore(deps.redis, `${deps.prefix}:`, (error) => error);
  const ready = store.init({ windowMs: WINDOW_MS } as Options);
  const keyOf = (clientId: number) => `{client:${clientId}}:token-issue`;

  /** The store's answer, or null when Redis is away and the operator chose `open`. */
  async function ask(call: () => Promise<ClientRateLimitInfo | undefined>) {
    await ready;
    try {
      return (await call()) ?? null;
    } catch (error) {
      deps.log(
        'warn',
        'issue-limit',
        { err: error },
        'token issuance counter unreachable in Redis',
      );
      if (deps.onRedisFailure === 'open') return null;
      throw serviceUnavailable(5);
    }
  }

  function refuseOver(counted: ClientRateLimitInfo | null, limit: number): void {
    if (!counted || counted.totalHits <= limit) return;
    const resetMs = (counted.resetTime?.getTime() ?? Date.now() + WINDOW_MS) - Date.now();
    throw tooManyTokens(Math.max(1, Math.ceil(resetMs / 1000)));
  }

  return {
    async check(clientId) {
      refuseOver(await ask(() => store.get(keyOf(clientId))), deps.perMinute - 1);
    },
    async count(clientId) {
      refuseOver(await ask(() => store.increment(keyOf(clientId))), deps.perMinute);
    },
  };
}
