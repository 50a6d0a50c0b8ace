// The operator commands' side of the token caches: a command that changes what a client's tokens
// may do moves the client's epoch in the deployment's Redis, so every running gateway re-reads the
// client on its next request (docs/decisions/0005-fast-hot-path.md). Without Redis the change
// is made in PostgreSQL all the same, and the operator is told how long caches may lag.
import type { Config } from '#common/config.js';
import type { RedisClient } from '#common/redis.js';
import { withTimeout } from '#common/with-timeout.js';
import { createClientEpochs, type ClientEpochs } from '../../trust/client-epochs.js';

/** A connection to Redis and when it is ready (rejected if it failed first). */
export interface RedisConnection {
  redis: RedisClient;
  ready: Promise<void>;
}

/**
 * Epochs over the CLIs' Redis connection (gateway/src/cli-services.ts), opened by the first
 * change and closed with the other services; a bump waits `waitMs` for it at most.
 */
export function announcingEpochs(
  config: Config,
  connection: () => RedisConnection,
  waitMs: number,
): ClientEpochs {
  const epochs = () => createClientEpochs(connection().redis, config.redis.prefix);
  return {
    keyOf: (clientId) => epochs().keyOf(clientId),
    current: (clientId) => epochs().current(clientId),
    async bump(clientId) {
      const { ready } = connection();
      const reached = await withTimeout(ready, waitMs).then(
        () => true,
        () => false,
      );
      await (reached ? epochs().bump(clientId) : Promise.reject(new Error('not connected'))).catch(
        (error: unknown) =>
          console.error(
            `warning: Redis unreachable (${(error as Error).message}); running gateways may ` +
              `serve this client's cached tokens for up to ${config.tokens.cacheSeconds} s`,
          ),
      );
    },
  };
}
