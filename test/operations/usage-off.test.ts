// USAGE_COUNTING=off (docs/decisions/0015-usage-reports.md): the gateway counts nothing, so
// nothing reaches Redis nor, once merged, the hourly counts.
import { describe, expect } from 'vitest';
import { usageKeys } from '#api/usage/usage-cells.js';
import { createRedis } from '#common/redis.js';
import { mergeUsage } from '../../worker/src/usage/usage-merge.js';
import { gatewayTest } from '../support/fixtures.js';
import { bearer, createTestClient, getJson, issueToken } from '../support/gateway.js';

/** `env`, `gateway`, and `workerRedis`: the worker's Redis connection, closed after the file. */
const it = gatewayTest({ USAGE_COUNTING: 'off', USAGE_FLUSH_INTERVAL_MS: '100' }).extend(
  'workerRedis',
  { scope: 'file' },
  ({ env }, { onCleanup }) => {
    const workerRedis = createRedis(env.redisUrl, { forWorker: true });
    onCleanup(() => workerRedis.disconnect());
    return workerRedis;
  },
);

describe('USAGE_COUNTING=off', () => {
  it('when requests are answered, then none is counted in Redis or in the hourly counts', async ({
    env,
    gateway,
    workerRedis,
  }) => {
    const client = await createTestClient(gateway.db);
    const token = await issueToken(gateway, client);
    const statuses = await Promise.all(
      ['/api/v1/members?limit=1', '/api/v1/members/2147483000', '/api/v1/no-such-thing'].map(
        async (path) => (await getJson(`${gateway.url}${path}`, bearer(token))).status,
      ),
    );
    expect(statuses).toEqual([200, 404, 404]);
    // Past a flush interval, then a flush asked for: a counter that counted would have sent it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await gateway.usage.flush();
    expect(await workerRedis.exists(usageKeys(env.redisPrefix).counts)).toBe(0);
    await mergeUsage({ readModel: gateway.db, redis: workerRedis, prefix: env.redisPrefix });
    const [row] = await gateway.db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM usage_hours`;
    expect(row?.n).toBe(0);
  });
});
