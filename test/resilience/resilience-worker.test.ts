// The worker process heals itself: a Redis restarted empty (no persistence) loses every job
// scheduler, and the worker re-creates them without a restart; a table that stops syncing
// makes /healthz answer 503 while /metrics keeps answering; an outage logs a few JSON lines,
// never stack traces on stderr. With each sync source.
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import {
  createTestEnvironment,
  SYNC_SOURCES,
  type SyncSource,
  type TestEnvironment,
} from '../support/environment.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import {
  environmentVariables,
  startProcess,
  type LogLine,
  type RunningProcess,
} from '../support/processes.js';
import { SpareRedis } from '../support/spare-redis.js';
import { verifyEnvironment } from '../support/verify.js';
import { eventually } from '../support/eventually.js';

let env: TestEnvironment;
let redis: SpareRedis;
let readModel: ReadModelClient;
let dashboard: LegacyDashboard;
let branchId: number;
const started: RunningProcess[] = [];

/**
 * When a table that has not synced counts as stale: SYNC_STALE_AFTER_INTERVALS of its polling
 * interval, which is the 30 s safety net while the binary log is followed.
 */
const STALENESS: Record<SyncSource, { intervals: string; withinMs: number }> = {
  poll: { intervals: '5', withinMs: 15_000 },
  binlog: { intervals: '1', withinMs: 45_000 },
};

describe.each(SYNC_SOURCES)('with SYNC_SOURCE=%s', (source) => {
  beforeAll(async () => {
    [env, redis] = await Promise.all([
      createTestEnvironment({ syncSource: source }),
      SpareRedis.start(),
    ]);
    readModel = createReadModelClient(env.databaseUrl, { poolSize: 2 });
    dashboard = await LegacyDashboard.connect(env.legacyUrl);
    branchId = await dashboard.insertBranch();
  });

  afterAll(async () => {
    for (const p of started) p.kill();
    await Promise.all(started.map((p) => p.exited));
    await redis?.destroy();
    await dashboard?.close();
    await readModel?.$disconnect();
    await env?.destroy();
  });

  function startWorker(overrides: Record<string, string> = {}) {
    const worker = startProcess('worker', {
      ...environmentVariables(env),
      REDIS_URL: redis.url,
      SYNC_INTERVAL_MS: '200',
      ...overrides,
    });
    started.push(worker);
    return worker;
  }

  async function metricsUrl(worker: RunningProcess): Promise<string> {
    const line = await worker.waitForLine((l) => l.msg === 'sync worker started');
    return `http://127.0.0.1:${line.metricsPort as number}`;
  }

  async function syncedWithin(memberId: number, timeoutMs: number): Promise<void> {
    await eventually(
      async () =>
        expect(await readModel.member.findUnique({ where: { id: memberId } })).not.toBeNull(),
      timeoutMs,
      100,
    );
  }

  async function unusedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  const isStackTrace = (text: string) => /\n\s+at .+:\d+:\d+\)?/.test(text);

  describe('the worker process when Redis restarts empty', () => {
    it('when Redis comes back without its data, then a new legacy row is synced within 30 s with no restart', async () => {
      const worker = startWorker();
      await metricsUrl(worker);
      await syncedWithin(await dashboard.insertMember({ branch_id: branchId }), 20_000);

      await redis.stop();
      const outageStartedAt = worker.lines.length;
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await redis.start();
      const insertedAt = Date.now();
      await syncedWithin(await dashboard.insertMember({ branch_id: branchId }), 30_000);
      const healedInMs = Date.now() - insertedAt;

      expect(worker.child.exitCode).toBeNull();
      expect(healedInMs).toBeLessThan(30_000);
      // A follower of the binary log may bring the row before the schedulers are re-created.
      await eventually(() => {
        const recreated = worker.lines
          .slice(outageStartedAt)
          .filter((l) => l.msg === 'job schedulers missing in Redis; re-created');
        expect(recreated.some((l) => l.table === 'members')).toBe(true);
        // The follower's scheduler too, or no follower would start again.
        if (source === 'binlog') {
          expect(recreated.some((l) => l.queue === '{sync-binlog}')).toBe(true);
        }
      }, 15_000);
      const outageLines: LogLine[] = worker.lines.slice(outageStartedAt);
      expect(outageLines.filter((l) => String(l.msg).startsWith('(not JSON)'))).toEqual([]);
      // Throttled: a handful of lines per kind, not one per failed command.
      expect(outageLines.length).toBeLessThan(60);
      expect(isStackTrace(worker.stderr())).toBe(false);
      expect((await verifyEnvironment(env)).reports).toEqual([]);

      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    }, 60_000);
  });

  describe('the worker process when its databases are unreachable', () => {
    it('when no table can sync, then /healthz answers 503 naming the tables and /metrics still answers', async () => {
      const deadPort = await unusedPort();
      const worker = startWorker({
        DATABASE_URL: `postgresql://postgres@127.0.0.1:${deadPort}/nothing`,
        LEGACY_DATABASE_URL: `mysql://root@127.0.0.1:${deadPort}/nothing`,
        SYNC_STALE_AFTER_INTERVALS: STALENESS[source].intervals,
      });
      const url = await metricsUrl(worker);
      const health = await eventually(
        async () => {
          const response = await fetch(`${url}/healthz`);
          expect(response.status).toBe(503);
          return (await response.json()) as { stale_tables: string[]; source: string };
        },
        STALENESS[source].withinMs,
        200,
      );
      expect(health.stale_tables).toContain('members');
      expect(health.source).toBe(source);

      const started = Date.now();
      const metrics = await fetch(`${url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(2000);
      const text = await metrics.text();
      expect(text).toContain('sync_table_stale{table="members"} 1');
      expect(text).toMatch(/sync_state_read_failures_total [1-9]/);
      expect(isStackTrace(worker.stderr())).toBe(false);

      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    }, 60_000);
  });
});
