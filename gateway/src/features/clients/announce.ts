// The operator commands' side of the token caches: a command that changes what a client's tokens
// may do moves the client's epoch in the deployment's Redis, so every running gateway re-reads the
// client on its next request (docs/decisions/0005-fast-hot-path.md). Without Redis the change
// is made in PostgreSQL all the same, and the operator is told how long caches may lag.
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '#common/config.js';
import { createRedis } from '#common/redis.js';
import { createClientEpochs, type ClientEpochs } from '../../trust/client-epochs.js';

const CONNECT_WAIT_MS = 3000;

/** Epochs over a Redis connection opened by the first change; close() ends it. */
export function announcingEpochs(config: Config): ClientEpochs & { close(): void } {
  let opened: { redis: ReturnType<typeof createRedis>; ready: Promise<boolean> } | null = null;
  const open = () => {
    if (!opened) {
      const redis = createRedis(config.redis.url, { caFile: config.redis.caFile });
      redis.on('error', () => undefined);
      const ready = once(redis, 'ready').then(
        () => true,
        () => false,
      );
      opened = { redis, ready };
    }
    return opened;
  };
  return {
    keyOf: (clientId) => createClientEpochs(open().redis, config.redis.prefix).keyOf(clientId),
    current: (clientId) => createClientEpochs(open().redis, config.redis.prefix).current(clientId),
    async bump(clientId) {
      const { redis, ready } = open();
      const reached = await Promise.race([ready, sleep(CONNECT_WAIT_MS).then(() => false)]);
      const epochs = createClientEpochs(redis, config.redis.prefix);
      await (reached ? epochs.bump(clientId) : Promise.reject(new Error('not connected'))).catch(
        (error: unknown) =>
          console.error(
            `warning: Redis unreachable (${(error as Error).message}); running gateways may ` +
              `serve this client's cached tokens for up to ${config.tokens.cacheSeconds} s`,
          ),
      );
    },
    close: () => opened?.redis.disconnect(),
  };
}
