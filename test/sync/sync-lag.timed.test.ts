// Freshness at default settings: 200 updates to tables with updated_at, each timed from its
// legacy commit to its visibility in the read model; deletes and updated_at-less changes within
// two reconciliation intervals. With each sync source: the binary log's figures are the same
// bounds, met sooner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import {
  createTestEnvironment,
  SYNC_SOURCES,
  type TestEnvironment,
} from '../support/environment.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { deleteAndFlipUnseen } from '../support/random-dashboard.js';
import { syncOnce } from '../support/sync-once.js';
import { eventually } from '../support/eventually.js';
import { startWorker } from '../support/worker.js';

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let readModel: ReadModelClient;

describe.each(SYNC_SOURCES)('with SYNC_SOURCE=%s', (source) => {
  beforeAll(async () => {
    env = await createTestEnvironment({ syncSource: source });
    dashboard = await LegacyDashboard.connect(env.legacyUrl);
    await generateLegacyData(dashboard.conn, { scale: 1, seed: 5 });
    await syncOnce(env);
    readModel = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  });

  afterAll(async () => {
    await readModel?.$disconnect();
    await dashboard?.close();
    await env?.destroy();
  });

  const percentile = (sorted: number[], p: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

  describe('sync lag', () => {
    it('when 200 rows are updated at default settings, then p99 from commit to read model is within 2 s', async () => {
      const worker = await startWorker(env); // SYNC_INTERVAL_MS default: 1000
      try {
        const committedAt = new Map<string, number>();
        const seenAt = new Map<string, number>();
        let writing = true;
        const watcher = (async () => {
          while (writing || seenAt.size < committedAt.size) {
            const [members, transactions] = await Promise.all([
              readModel.member.findMany({
                where: { address: { startsWith: 'lag-' } },
                select: { address: true },
              }),
              readModel.financialTransaction.findMany({
                where: { description: { startsWith: 'lag-' } },
                select: { description: true },
              }),
            ]);
            const now = Date.now();
            for (const marker of [
              ...members.map((m) => m.address!),
              ...transactions.map((t) => t.description),
            ]) {
              if (!seenAt.has(marker)) seenAt.set(marker, now);
            }
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        })();
        // Distinct live rows, so a later update never hides an earlier one.
        const ids = async (sql: string) =>
          (await dashboard.query<{ id: number }>(sql)).map((r) => r.id);
        const memberIds = await ids(
          'SELECT id FROM members WHERE is_deleted = 0 ORDER BY id LIMIT 100',
        );
        const transactionIds = await ids(
          'SELECT id FROM financial_transactions ORDER BY id LIMIT 100',
        );
        for (let i = 0; i < 200; i++) {
          const marker = `lag-${i}`;
          const id = i % 2 === 0 ? memberIds[i / 2] : transactionIds[(i - 1) / 2];
          if (i % 2 === 0)
            await dashboard.query('UPDATE members SET address = ? WHERE id = ?', [marker, id]);
          else
            await dashboard.query(
              'UPDATE financial_transactions SET description = ? WHERE id = ?',
              [marker, id],
            );
          committedAt.set(marker, Date.now());
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        writing = false;
        await Promise.race([
          watcher,
          new Promise((_, reject) =>
            setTimeout(() => reject(new Error('not all updates arrived')), 15_000),
          ),
        ]);

        const lags = [...committedAt]
          .map(([marker, at]) => seenAt.get(marker)! - at)
          .sort((a, b) => a - b);
        const p50 = percentile(lags, 50);
        const p99 = percentile(lags, 99);
        console.log(
          `sync lag over ${lags.length} updates: p50 ${p50} ms, p99 ${p99} ms, max ${lags.at(-1)} ms`,
        );
        expect(lags).toHaveLength(200);
        expect(p99).toBeLessThanOrEqual(2000);
      } finally {
        await worker.close();
      }
    }, 60_000);

    it('when rows are deleted or changed without updated_at, then they arrive within two reconciliation intervals', async () => {
      const reconcileIntervalMs = 3000;
      const worker = await startWorker(env, { reconcileIntervalMs });
      try {
        const unseen = await deleteAndFlipUnseen(dashboard);
        await eventually(async () => {
          expect(
            await readModel.memberPackage.findUnique({
              where: { id: unseen.deletedMemberPackageId },
            }),
          ).toBeNull();
          expect(
            (
              await readModel.notification.findUniqueOrThrow({
                where: { id: unseen.notificationId },
              })
            ).is_read,
          ).toBe(unseen.isRead);
        }, 2 * reconcileIntervalMs);
      } finally {
        await worker.close();
      }
    }, 30_000);
  });
});
