// The operator's view of a worker following the binary log (docs/decisions/0016), on a MariaDB of
// the test's own: how far behind the log it is (sync_binlog_bytes_behind), and how long since the
// log last spoke (sync_binlog_seconds_since_event). A batch held back by a lock on the stored
// position leaves bytes behind; released, they fall to 0.
// The server frozen (SIGSTOP): three heartbeats missed, the worker polls at the normal rate as
// `sync_source` and /healthz say, its tables stale within the normal interval's threshold, not the
// safety net's; thawed, a reconciliation pass, then the log again, sync:verify 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelClient, readModelPool, type ReadModelClient } from '#common/databases.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { environmentVariables, startProcess, type RunningProcess } from '../support/processes.js';
import { SpareMariaDb } from '../support/spare-mariadb.js';
import { verifyEnvironment } from '../support/verify.js';
import { eventually } from '../support/eventually.js';

let server: SpareMariaDb;
let env: TestEnvironment;
let dashboard: LegacyDashboard;
let readModel: ReadModelClient;
let worker: RunningProcess | undefined;
let url: string;
let branch: number;

beforeAll(async () => {
  server = await SpareMariaDb.start({ binaryLog: true });
  env = await createTestEnvironment({ syncSource: 'binlog', mariadb: server });
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  readModel = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  branch = await dashboard.insertBranch();
  worker = startProcess('worker', {
    ...environmentVariables(env),
    WORKER_ROLES: 'sync',
    // Reconciliation an hour apart: whatever arrives within seconds came from the log.
    RECONCILE_INTERVAL_MS: '3600000',
    // Stale after 5 s without a sign of life (the normal 1 s interval's), not 5 x 30 s.
    SYNC_STALE_AFTER_INTERVALS: '5',
  });
  const started = await worker.waitForLine((l) => l.msg === 'sync worker started', 60_000);
  url = `http://127.0.0.1:${started.metricsPort as number}`;
  await worker.waitForLine((l) => l.msg === 'following the binary log', 60_000);
}, 120_000);

afterAll(async () => {
  server?.thaw();
  worker?.kill();
  await worker?.exited;
  await readModel?.$disconnect();
  await dashboard?.close();
  await env?.destroy().catch(() => undefined);
  await server?.destroy();
});

/** The worker's /healthz: its status code, the source it names and its stale tables. */
async function health() {
  const response = await fetch(`${url}/healthz`);
  const body = (await response.json()) as { source: string; stale_tables?: string[] };
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const metric = /^sync_source\{source="(\w+)"\} 1$/m.exec(metrics)?.[1];
  return { status: response.status, source: body.source, metric, stale: body.stale_tables ?? [] };
}

/** The worker's unlabelled gauge `name`, as /metrics shows it. */
async function gauge(name: string): Promise<number | undefined> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1];
  return value === undefined ? undefined : Number(value);
}

describe('the metrics of a worker following the binary log', () => {
  it('when a batch cannot be applied, then bytes are behind; once applied, none', async () => {
    await eventually(async () => expect(await gauge('sync_binlog_bytes_behind')).toBe(0), 15_000);
    const since = await gauge('sync_binlog_seconds_since_event');
    // Heartbeats each second while idle.
    expect(since).toBeDefined();
    expect(since!).toBeLessThan(2);

    // The batch's transaction writes the stored position last: held here, it waits.
    const holder = await readModelPool(readModel).connect();
    let added: number;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT * FROM binlog_position WHERE id = 1 FOR UPDATE');
      added = await dashboard.insertMember({ branch_id: branch });
      await eventually(
        async () => expect(await gauge('sync_binlog_bytes_behind')).toBeGreaterThan(0),
        10_000,
        200,
      );
    } finally {
      await holder.query('COMMIT');
      holder.release();
    }
    await eventually(async () => expect(await gauge('sync_binlog_bytes_behind')).toBe(0), 15_000);
    expect(await readModel.member.findUnique({ where: { id: added } })).not.toBeNull();
    expect((await verifyEnvironment(env)).reports).toEqual([]);
  }, 60_000);
});

describe('a worker following the binary log of a server that freezes', () => {
  it('when the log falls silent, then it polls, its tables go stale within the normal threshold, and it follows the log again once thawed', async () => {
    const sold = await dashboard.insertMemberPackage({
      member_id: await dashboard.insertMember({ branch_id: branch }),
      package_id: await dashboard.insertPackage(),
      branch_id: branch,
    });
    await eventually(
      async () =>
        expect(await readModel.memberPackage.findUnique({ where: { id: sold } })).not.toBeNull(),
      5000,
    );
    // Idle, polled only every 30 s: the log caught up keeps every table fresh past 5 s.
    for (let i = 0; i < 7; i += 1) {
      expect(await health()).toEqual({
        status: 200,
        source: 'binlog',
        metric: 'binlog',
        stale: [],
      });
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }

    server.freeze();
    const frozenAt = Date.now();
    await eventually(
      async () => expect(await health()).toMatchObject({ source: 'poll', metric: 'poll' }),
      10_000,
      200,
    );
    expect(await gauge('sync_binlog_seconds_since_event')).toBeGreaterThanOrEqual(3);
    // Nothing answers polling either: stale after 5 s (and the next 5 s check), not 150 s.
    const stale = await eventually(
      async () => {
        const shown = await health();
        expect(shown.status).toBe(503);
        return shown;
      },
      20_000,
      500,
    );
    expect(stale.stale).toContain('member_packages');
    expect(Date.now() - frozenAt).toBeLessThan(20_000);

    server.thaw();
    await eventually(
      async () =>
        expect(await health()).toEqual({
          status: 200,
          source: 'binlog',
          metric: 'binlog',
          stale: [],
        }),
      60_000,
      500,
    );
    await worker!.waitForLine((l) => l.msg === 'reconciled; back to the binary log', 1000);
    // A hard delete polling cannot see, within seconds: the log is followed again.
    await dashboard.query('DELETE FROM member_packages WHERE id = ?', [sold]);
    await eventually(
      async () =>
        expect(await readModel.memberPackage.findUnique({ where: { id: sold } })).toBeNull(),
      5000,
    );
    expect((await verifyEnvironment(env)).reports).toEqual([]);
  }, 120_000);
});
