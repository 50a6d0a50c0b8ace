// Usage counts do not grow with time: the worker deletes the hours that ended more than
// USAGE_RETENTION_DAYS ago (here five minutes) and keeps the others, and forgets the names of
// merged batches after a week.
import { describe, expect } from 'vitest';
import { createReadModelClient, readModelPool } from '#common/databases.js';
import { purgeExpired } from '../../worker/src/retention.js';
import { envTest } from '../support/fixtures.js';

/** `env`, and `db`: a read model client on its database, disconnected after the file. */
const it = envTest.extend('db', { scope: 'file' }, ({ env }, { onCleanup }) => {
  const db = createReadModelClient(env.databaseUrl);
  onCleanup(() => db.$disconnect());
  return db;
});

const HOUR = 3_600_000;
const hourStart = (msAgo: number) => {
  const at = Date.now() - msAgo;
  return new Date(at - (at % HOUR));
};

describe('usage retention', () => {
  it('when hours ended longer ago than USAGE_RETENTION_DAYS, then the worker deletes them only', async ({
    env,
    db,
  }) => {
    const row = (hour: Date, operation: string) => ({
      hour,
      client_id: 1,
      operation,
      status: 200,
      requests: 1n,
      bytes_out: 10n,
    });
    // The hour under way, and hours that ended two and thirty hours ago.
    await db.usageHour.createMany({
      data: [
        row(hourStart(0), 'GET now'),
        row(hourStart(3 * HOUR), 'GET three hours ago'),
        row(hourStart(31 * HOUR), 'GET a day ago'),
      ],
    });
    await db.usageMerge.createMany({
      data: [
        { batch: 'old', merged_at: new Date(Date.now() - 8 * 86_400_000) },
        { batch: 'recent', merged_at: new Date(Date.now() - 86_400_000) },
      ],
    });
    const config = env.config({ USAGE_RETENTION_DAYS: String(5 / 1440) });
    expect(config.usage.retentionMs).toBe(300_000);

    const deleted = await purgeExpired(readModelPool(db), {
      tokensMs: config.tokens.retentionMs,
      auditMs: config.audit.retentionMs,
      webhookEventsMs: config.webhooks.retentionMs,
      usageMs: config.usage.retentionMs,
    });

    expect(deleted.usage_hours).toBe(2);
    const left = await db.usageHour.findMany();
    expect(left.map((r) => r.operation)).toEqual(['GET now']);
    expect(deleted.usage_merges).toBe(1);
    expect((await db.usageMerge.findMany()).map((m) => m.batch)).toEqual(['recent']);
  });
});
