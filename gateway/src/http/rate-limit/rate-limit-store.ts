// rate-limit-redis's store (atomic Lua INCR with a PX expiry: one fixed window per key), extended
// where version 6.0.1 falls short for a gateway whose Redis client fails fast. Extended rather
// than replaced so the counting script stays the library's.
import type { ClientRateLimitInfo, IncrementResponse, Options } from 'express-rate-limit';
import type { RedisClient } from '#common/redis.js';
import { RedisStore, type RedisReply } from 'rate-limit-redis';

export class GatewayRedisStore extends RedisStore {
  constructor(
    redis: RedisClient,
    prefix: string,
    /** Called with every Redis failure; returns the error the limiter then sees. */
    private readonly onFailure: (error: unknown) => unknown,
  ) {
    super({
      prefix,
      sendCommand: (command: string, ...args: string[]) =>
        redis.call(command, ...args) as Promise<RedisReply>,
    });
  }

  // Not yet connected at start is normal for a fail-fast client: the first request loads the
  // scripts (below) instead of a start-up error in the log.
  override async init(options: Options): Promise<void> {
    await super.init(options).catch(() => undefined);
  }

  // The library loads its scripts once, in init(), and loads them again only after NOSCRIPT. Our
  // client has no offline queue, so the load at start (before the connection is up) or one during
  // an outage fails, and the rejected promise would be re-thrown by every request for ever. A
  // failed load is therefore retried by the next request.
  override async increment(key: string): Promise<IncrementResponse> {
    this.incrementScriptSha = this.incrementScriptSha.catch(() => this.loadIncrementScript());
    try {
      return await super.increment(key);
    } catch (error) {
      throw this.onFailure(error);
    }
  }

  // For a key that does not exist the library returns NaN hits (Lua false arrives as null from
  // ioredis 6) and a reset time in the past (PTTL -2); that is a window nobody has used yet.
  override async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    this.getScriptSha = this.getScriptSha.catch(() => this.loadGetScript());
    const info = await super.get(key);
    if (!info || Number.isNaN(info.totalHits) || (info.resetTime?.getTime() ?? 0) <= Date.now()) {
      return undefined;
    }
    return info;
  }
}
