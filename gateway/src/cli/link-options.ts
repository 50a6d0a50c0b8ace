// What the commands that print sign-in links share (`npm run console -- link`, `npm run clients
// -- portal-link`): the --ttl they accept, and the deployment's Redis where links are kept.
import { once } from 'node:events';
import { createRedis, type RedisClient } from '../../../common/redis.js';
import { withTimeout } from '../../../common/with-timeout.js';
import { OperatorRefusal } from '../features/operators/refusal.js';

const UNITS = { s: 1000, m: 60_000, h: 3_600_000 } as const;
const MAX_TTL_MS = 24 * 3_600_000;

export function parseTtl(value: string): number {
  const match = /^(\d+)([smh])$/.exec(value);
  const ms = match ? Number(match[1]) * UNITS[match[2] as keyof typeof UNITS] : 0;
  if (ms <= 0 || ms > MAX_TTL_MS)
    throw new OperatorRefusal(
      `--ttl must be a duration such as 90s, 15m or 2h (at most 24h), got "${value}"`,
    );
  return ms;
}

/** Runs `use` with a connection to Redis, closed after; unreachable within 3 s, it fails. */
export async function withRedis<T>(url: string, use: (redis: RedisClient) => Promise<T>) {
  const redis = createRedis(url);
  redis.on('error', () => undefined);
  try {
    await withTimeout(once(redis, 'ready'), 3000);
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}
