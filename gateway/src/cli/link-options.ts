// What the commands that print sign-in links share (`npm run console -- link`, `npm run clients
// -- portal-link`): the --ttl they accept. The commands' Redis is the CLIs' composition root's
// (gateway/src/cli-services.ts); withRedis is the demo's (scripts/demo.ts), which runs no command.
import { once } from 'node:events';
import type { Config } from '#common/config.js';
import { createRedis, type RedisClient } from '#common/redis.js';
import { withTimeout } from '#common/with-timeout.js';
import { parseDuration } from './durations.js';

const MAX_TTL_MS = 24 * 3_600_000;

export const parseTtl = (value: string) => parseDuration(value, '--ttl', MAX_TTL_MS);

/** Runs `use` with a connection to Redis, closed after; unreachable within 3 s, it fails. */
export async function withRedis<T>(
  settings: Pick<Config['redis'], 'url' | 'caFile'>,
  use: (redis: RedisClient) => Promise<T>,
) {
  const redis = createRedis(settings.url, { caFile: settings.caFile });
  redis.on('error', () => undefined);
  try {
    await withTimeout(once(redis, 'ready'), 3000);
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}
