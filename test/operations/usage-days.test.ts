// Usage by day (docs/decisions/0015-usage-reports.md): usage_days stays usage_hours summed by UTC
// day through merges (new hours, hours added to) and retention (whole and partly deleted days), and
// a report of whole days, which reads it, answers what the hours add up to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellFields, LATENCY_BUCKETS, usageKeys, type UsageCell } from '#api/usage/usage-cells.js';
import { createReadModelClient, readModelPool, type ReadModelClient } from '#common/databases.js';
import { createRedis, type RedisClient } from '#common/redis.js';
import { readUsage } from '../../gateway/src/features/usage/usage.read.js';
import { purgeExpired } from '../../worker/src/retention.js';
import { mergeUsage } from '../../worker/src/usage/usage-merge.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';

let env: TestEnvironment;
let db: ReadModelClient;
let redis: RedisClient;

beforeAll(async () => {
  env = await createTestEnvironment();
  db = createReadModelClient(env.databaseUrl);
  redis = createRedis(env.redisUrl, { forWorker: true });
});

afterAll(async () => {
  redis?.disconnect();
  await db?.$disconnect();
  await env?.destroy();
});

const HOUR = 3_600_000;
const DAY = 86_400_000;
const hourStart = (msAgo: number) => {
  const at = Date.now() - msAgo;
  return at - (at % HOUR);
};

/** A cell of `requests` requests, as many answered within 5 ms as there are. */
const cell = (
  hour: number,
  clientId: number,
  operation: string,
  status: number,
  requests: number,
) =>
  ({
    hour,
    clientId,
    operation,
    status,
    requests,
    bytesOut: requests * 10,
    latency: new Array<number>(LATENCY_BUCKETS).fill(0).map((_, i) => (i === 1 ? requests : 0)),
  }) satisfies UsageCell;

/** One batch through the worker's merge, as the gateways' counts arrive. */
async function merge(cells: UsageCell[]) {
  const keys = usageKeys(env.redisPrefix);
  await redis.hset(keys.counts, Object.fromEntries(cells.flatMap(cellFields)));
  await mergeUsage({ readModel: db, redis, prefix: env.redisPrefix });
}

/** Rows of usage_days that differ from usage_hours summed by day, both ways. */
async function differences() {
  const [row] = await db.$queryRaw<{ n: number }[]>`
    WITH summed AS (
      SELECT date_trunc('day', hour, 'UTC') AS day, client_id, operation, status,
             sum(requests)::bigint AS requests, sum(bytes_out)::bigint AS bytes_out,
             sum(ms_le_5)::bigint AS ms_le_5
        FROM usage_hours GROUP BY 1, 2, 3, 4),
    kept AS (
      SELECT day, client_id, operation, status, requests, bytes_out, ms_le_5 FROM usage_days)
    SELECT count(*)::int AS n FROM ((TABLE summed EXCEPT TABLE kept)
                                    UNION ALL (TABLE kept EXCEPT TABLE summed)) d`;
  return row!.n;
}

describe('usage by day', () => {
  it('when hours are merged, added to and purged, then usage_days is their sum by day and whole-day reports agree', async () => {
    const hours = [0, 1, 2, 3, 5, 26, 27, 50].map((h) => hourStart(h * HOUR));
    await merge(hours.map((h, i) => cell(h, 1, 'GET /api/v1/members', 200, i + 1)));
    // Hours already there added to, new ones, and a second client, in one batch.
    await merge([
      ...hours.slice(0, 4).map((h) => cell(h, 1, 'GET /api/v1/members', 200, 10)),
      cell(hours[0]!, 1, 'GET /api/v1/members', 404, 2),
      cell(hours[5]!, 2, 'GET /api/v1/members/{id}', 200, 7),
    ]);
    expect(await differences()).toBe(0);
    expect(await db.usageDay.count()).toBeGreaterThan(0);

    // Whole days read usage_days; by hour they read usage_hours: the same requests each day.
    const to = new Date(Math.ceil(Date.now() / DAY) * DAY);
    const from = new Date(to.getTime() - 4 * DAY);
    const pool = readModelPool(db);
    const byDay = await readUsage(pool, {
      from,
      to,
      granularity: 'day',
      groupBy: null,
      maxRows: 100,
    });
    const byHour = await readUsage(pool, {
      from,
      to,
      granularity: 'hour',
      groupBy: null,
      maxRows: 1000,
    });
    const perDay = new Map<string, number>();
    for (const row of byHour.rows) {
      const day = new Date(Math.floor(Date.parse(row.period_start!) / DAY) * DAY).toISOString();
      perDay.set(day, (perDay.get(day) ?? 0) + row.requests);
    }
    expect(byDay.rows.map((r) => [r.period_start, r.requests])).toEqual([...perDay.entries()]);
    const whole = await readUsage(pool, {
      from,
      to,
      granularity: null,
      groupBy: 'client',
      maxRows: 10,
    });
    expect(whole.rows.map((r) => [r.group, r.requests, r.bytes_out])).toEqual([
      [1, 78, 780],
      [2, 7, 70],
    ]);

    // Retention takes days off whole and in part (an hour and a half: the last few hours stay).
    const deleted = await purgeExpired(pool, {
      tokensMs: DAY,
      auditMs: DAY,
      webhookEventsMs: DAY,
      usageMs: 90 * 60_000,
    });
    expect(deleted.usage_hours).toBeGreaterThan(0);
    expect(await differences()).toBe(0);
    const days = await db.usageDay.findMany({ select: { day: true } });
    expect(Math.min(...days.map((d) => d.day.getTime()))).toBeGreaterThanOrEqual(
      Math.floor((Date.now() - 6 * HOUR) / DAY) * DAY,
    );

    // Everything gone: nothing left by day either.
    await db.$executeRaw`DELETE FROM usage_hours`;
    expect(await db.usageDay.count()).toBe(0);
  });
});
