// Several hundred random dashboard mutations, odd legacy writes included (old explicit
// updated_at, updates keeping updated_at, zero dates, values outside the documented sets, orphan
// foreign keys), while two worker processes' runners sync: after two reconciliation intervals
// without writes, verify finds no difference, the rejects hold only the rows no API field can
// represent, and no two runs of one table ever overlapped. With each sync source.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import {
  createTestEnvironment,
  SYNC_SOURCES,
  type TestEnvironment,
} from '../support/environment.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { mutateRandomly, MUTATIONS } from '../support/random-dashboard.js';
import { verifyEnvironment } from '../support/verify.js';
import { startWorker } from '../support/worker.js';

const RECONCILE_INTERVAL_MS = 4000;
let env: TestEnvironment;
let dashboard: LegacyDashboard;

describe.each(SYNC_SOURCES)('with SYNC_SOURCE=%s', (source) => {
  beforeAll(async () => {
    env = await createTestEnvironment({ syncSource: source });
    dashboard = await LegacyDashboard.connect(env.legacyUrl);
    await generateLegacyData(dashboard.conn, { scale: 0.3, seed: 3 });
  });

  afterAll(async () => {
    await dashboard?.close();
    await env?.destroy();
  });

  describe('sync under random dashboard writes', () => {
    it('when two workers sync through 400 random mutations with odd legacy writes, then verify finds zero differences, only unrepresentable rows are rejected and runs never overlap', async () => {
      const options = { intervalMs: 500, reconcileIntervalMs: RECONCILE_INTERVAL_MS };
      const workers = [await startWorker(env, options), await startWorker(env, options)];
      try {
        const applied = await mutateRandomly(dashboard, 400, 20261121);
        expect(Object.keys(applied).sort()).toEqual(Object.keys(MUTATIONS).sort());

        // Two reconciliation intervals with no writes.
        await new Promise((resolve) => setTimeout(resolve, 2 * RECONCILE_INTERVAL_MS));
        const { total, reports } = await verifyEnvironment(env);
        expect(reports).toEqual([]);
        expect(total).toBe(0);

        const unrepresentable = await dashboard.query<{ id: number }>(
          "SELECT id FROM members WHERE is_deleted = 0 AND CAST(created_at AS CHAR) LIKE '0000%' AND CAST(updated_at AS CHAR) LIKE '0000%' ORDER BY id",
        );
        expect(unrepresentable.length).toBeGreaterThan(0);
        const rejects = await workers[0]!.readModel.syncReject.findMany({
          orderBy: { row_id: 'asc' },
        });
        expect(rejects.map((r) => [r.table_name, Number(r.row_id), r.reason])).toEqual(
          unrepresentable.map((m) => [
            'members',
            Number(m.id),
            'created_at and updated_at: both zero or invalid',
          ]),
        );

        for (const queue of workers[0]!.runner.queues) {
          const jobs = (await queue.getJobs(['completed', 'failed'], 0, -1))
            .filter((job) => job.processedOn && job.finishedOn)
            .sort((a, b) => a.processedOn! - b.processedOn!);
          expect(jobs.length, queue.name).toBeGreaterThan(0);
          for (let i = 1; i < jobs.length; i++) {
            expect(
              jobs[i]!.processedOn!,
              `${queue.name} run ${i} started before run ${i - 1} finished`,
            ).toBeGreaterThanOrEqual(jobs[i - 1]!.finishedOn!);
          }
        }
      } finally {
        await Promise.all(workers.map((w) => w.close()));
      }
    }, 120_000);
  });
});
