// SIGTERM on the real processes, with bounds many times what they take (so this file runs beside
// others). The gateway, with requests held in flight by a table lock in PostgreSQL (the test
// decides when they may finish): every one is answered, the port stops accepting, and it exits 0
// before SHUTDOWN_TIMEOUT_MS (8 s; the held requests finish within a second of their release).
// The worker, in the middle of a backfill: it ends its run at a batch boundary, exits 0 before
// SHUTDOWN_TIMEOUT_MS (a batch takes well under a second), and the next worker resumes with no
// duplicate and no gap, with each sync source. A second signal to the gateway, which exits within
// a second: resilience-shutdown.timed.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import {
  createTestEnvironment,
  SYNC_SOURCES,
  type TestEnvironment,
} from '../support/environment.js';
import { createTestClient } from '../support/gateway.js';
import { gatewayWithHeldRequests, IN_FLIGHT } from '../support/held-requests.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { environmentVariables, startProcess, type RunningProcess } from '../support/processes.js';
import { SAFETY_NET_POLL_MS } from '#read-model/sync-health.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import { verifyEnvironment } from '../support/verify.js';
import { eventually } from '../support/eventually.js';
import { startWorker } from '../support/worker.js';

const SHUTDOWN_TIMEOUT_MS = 8000;
let env: TestEnvironment;
let db: ReadModelClient;
const started: RunningProcess[] = [];

describe.each(SYNC_SOURCES)('with SYNC_SOURCE=%s', (source) => {
  beforeAll(async () => {
    env = await createTestEnvironment({ syncSource: source });
    db = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  });

  afterAll(async () => {
    for (const p of started) p.kill();
    await db?.$disconnect();
    await env?.destroy();
  });

  // The gateway reads no SYNC_SOURCE: once, with the first.
  describe.runIf(source === SYNC_SOURCES[0])('the gateway process on SIGTERM', () => {
    it('when requests are in flight, then every one is answered and it exits 0 in time', async () => {
      const client = await createTestClient(db);
      const { gateway, locker, answers } = await gatewayWithHeldRequests(
        env,
        db,
        client,
        SHUTDOWN_TIMEOUT_MS,
      );
      started.push(gateway);

      const signalledAt = Date.now();
      gateway.child.kill('SIGTERM');
      await gateway.waitForLine((l) => l.msg === 'stopping: finishing work in flight');
      // Stopped accepting: a new connection is refused while the held requests still run.
      await expect(fetch(`${gateway.url}/healthz`)).rejects.toThrow();

      await locker.query('COMMIT');
      await locker.end();
      const results = await Promise.all(answers);
      expect(results.map((r) => r.status)).toEqual(Array(IN_FLIGHT).fill(200));
      expect(await gateway.exited).toBe(0);
      expect(Date.now() - signalledAt).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    });
  });

  describe('the worker process on SIGTERM', () => {
    it('when it is in the middle of a backfill, then it exits 0 in time and the next worker resumes with zero differences', async () => {
      const dashboard = await LegacyDashboard.connect(env.legacyUrl);
      // Large enough that no worker finishes its backfill between the first rows and the signal.
      await generateLegacyData(dashboard.conn, { scale: 24, seed: 5 });
      await dashboard.close();
      const syncedRows = async () =>
        Number(
          (await db.syncState.aggregate({ _sum: { rows_synced: true } }))._sum.rows_synced ?? 0,
        );

      const worker = startProcess('worker', {
        ...environmentVariables(env),
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      });
      started.push(worker);
      await eventually(async () => expect(await syncedRows()).toBeGreaterThan(2000), 60_000, 20);
      const signalledAt = Date.now();
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      console.log(`worker exit after SIGTERM mid-backfill: ${Date.now() - signalledAt} ms`);
      expect(Date.now() - signalledAt).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
      // Stopped mid-backfill: some table was not yet caught up.
      const caughtUp = await db.syncState.count({ where: { synced_at: { not: null } } });
      expect(caughtUp).toBeLessThan(SYNC_TABLES.length);

      const resumedAt = new Date();
      const next = await startWorker(env);
      try {
        // Every table caught up by the next worker, then compared row by row with the legacy
        // database: nothing twice (keys are unique), nothing missed. Its start runs every table
        // at once, the half-done first loads among them, without waiting for their planned runs
        // (SAFETY_NET_POLL_MS away while the binary log is followed).
        await eventually(
          async () => {
            const states = await db.syncState.findMany({ where: { synced_at: { gt: resumedAt } } });
            expect(states.length).toBe(SYNC_TABLES.length);
          },
          SAFETY_NET_POLL_MS / 2,
          200,
        );
        expect((await verifyEnvironment(env)).reports).toEqual([]);
      } finally {
        await next.close();
      }
    }, 120_000);
  });
});
