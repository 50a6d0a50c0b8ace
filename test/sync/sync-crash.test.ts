// The worker killed with SIGKILL in the middle of a backfill resumes from its committed
// positions and finishes with zero differences and no duplicate rows, and with every index its
// first load dropped built again. With each sync source.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import { productionCommand } from '../../scripts/production-command.js';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import { readModelDatabaseDiff } from '../../scripts/migration-diff.js';
import {
  createTestEnvironment,
  SYNC_SOURCES,
  type TestEnvironment,
} from '../support/environment.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { verifyEnvironment } from '../support/verify.js';
import { eventually } from '../support/eventually.js';

let env: TestEnvironment;
let readModel: ReadModelClient;
let legacyRows = 0;

describe.each(SYNC_SOURCES)('with SYNC_SOURCE=%s', (source) => {
  beforeAll(async () => {
    env = await createTestEnvironment({ syncSource: source });
    const dashboard = await LegacyDashboard.connect(env.legacyUrl);
    const counts = await generateLegacyData(dashboard.conn, { scale: 34, seed: 11 });
    legacyRows = Object.values(counts).reduce((a, b) => a + b, 0);
    await dashboard.close();
    readModel = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  }, 300_000);

  afterAll(async () => {
    await readModel?.$disconnect();
    await env?.destroy();
  });

  function startWorkerProcess(): ChildProcess {
    // The compiled worker, as production runs it (the run's global set-up built it).
    return spawn(process.execPath, productionCommand('worker'), {
      env: {
        ...process.env,
        DATABASE_URL: env.databaseUrl,
        LEGACY_DATABASE_URL: env.legacyReadOnlyUrl,
        REDIS_PREFIX: env.redisPrefix,
        METRICS_PORT: '0',
        SYNC_SOURCE: source,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }

  const syncedRows = async () =>
    Number(
      (await readModel.syncState.aggregate({ _sum: { rows_synced: true } }))._sum.rows_synced ?? 0,
    );

  describe('a worker killed during the backfill', () => {
    it('when it is started again, then it finishes with zero differences, no duplicates and all its indexes', async () => {
      expect(legacyRows).toBeGreaterThanOrEqual(100_000);
      const first = startWorkerProcess();
      const exited = new Promise((resolve) => first.once('exit', resolve));
      // Kill it once a good part, but not all, of the backfill is committed.
      await eventually(async () => expect(await syncedRows()).toBeGreaterThan(20_000), 120_000, 50);
      first.kill('SIGKILL');
      await exited;
      const atKill = await syncedRows();
      expect(atKill).toBeLessThan(legacyRows);

      const second = startWorkerProcess();
      try {
        await eventually(
          async () => {
            const states = await readModel.syncState.findMany();
            expect(states.length).toBe(14);
            // Finished: every table caught up, and the indexes its first load set aside are
            // built again (that comes right after the catch-up's commit).
            expect(states.every((s) => s.synced_at !== null)).toBe(true);
            expect(states.every((s) => s.deferred_indexes.length === 0)).toBe(true);
          },
          240_000,
          500,
        );
      } finally {
        second.kill('SIGTERM');
        await new Promise((resolve) => second.once('exit', resolve));
      }

      const { total, reports } = await verifyEnvironment(env);
      expect(reports).toEqual([]);
      expect(total).toBe(0);
      const [dupes] = await readModel.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM (SELECT id FROM presence_records GROUP BY id HAVING count(*) > 1) d`;
      expect(Number(dupes!.n)).toBe(0);
      // The indexes dropped for the first load exist again, exactly as the schema declares them.
      expect(await readModelDatabaseDiff({ databaseUrl: env.databaseUrl })).toBe('');
      const deferred = await readModel.syncState.findMany({
        where: { NOT: { deferred_indexes: { isEmpty: true } } },
      });
      expect(deferred).toEqual([]);
      console.log(
        `crash test: ${legacyRows} legacy rows, ${atKill} synced when killed, resumed to zero differences`,
      );
    }, 400_000);
  });
});
