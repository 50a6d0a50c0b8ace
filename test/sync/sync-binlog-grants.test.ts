// A worker following the binary log whose user loses its replication grants: the server refuses
// its next dump (error 1227), and the worker polls at the normal rate meanwhile, as `sync_source`
// and /healthz say. Granted again, it reads the log from its stored position: a hard delete made
// meanwhile, which polling cannot see, arrives from the log (reconciliation is set an hour apart
// here), and sync:verify finds no difference. Its login refused (error 1045: the password changed)
// takes the same path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import { createTestEnvironment, workerUser, type TestEnvironment } from '../support/environment.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { pause } from '../support/load.js';
import { environmentVariables, startProcess, type RunningProcess } from '../support/processes.js';
import { verifyEnvironment } from '../support/verify.js';
import { eventually } from '../support/eventually.js';

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let readModel: ReadModelClient;
let worker: RunningProcess | undefined;

beforeAll(async () => {
  env = await createTestEnvironment({ syncSource: 'binlog' });
  // As root: it grants and revokes, and ends the worker's dump.
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  readModel = createReadModelClient(env.databaseUrl, { poolSize: 2 });
}, 120_000);

afterAll(async () => {
  worker?.kill();
  await worker?.exited;
  await readModel?.$disconnect();
  await dashboard?.close();
  await env?.destroy().catch(() => undefined);
});

/** The source as the worker's /healthz and its `sync_source` metric name it. */
async function sourceShown(url: string) {
  const health = (await (await fetch(`${url}/healthz`)).json()) as { source: string };
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const metric = /^sync_source\{source="(\w+)"\} 1$/m.exec(metrics)?.[1];
  return { healthz: health.source, metric };
}

describe('a worker following the binary log whose user loses its replication grants', () => {
  it('when its next dump is refused, then it polls until granted again, then reads the log from its stored position', async () => {
    const branch = await dashboard.insertBranch();
    const member = await dashboard.insertMember({ branch_id: branch });
    const sold = await dashboard.insertMemberPackage({
      member_id: member,
      package_id: await dashboard.insertPackage(),
      branch_id: branch,
    });
    worker = startProcess('worker', {
      ...environmentVariables(env),
      WORKER_ROLES: 'sync',
      RECONCILE_INTERVAL_MS: '3600000',
    });
    const started = await worker.waitForLine((l) => l.msg === 'sync worker started', 60_000);
    const url = `http://127.0.0.1:${started.metricsPort as number}`;
    await worker.waitForLine((l) => l.msg === 'following the binary log', 60_000);
    expect(await sourceShown(url)).toEqual({ healthz: 'binlog', metric: 'binlog' });

    const dump = await eventually(async () => {
      const dumps = await dashboard.query<{ ID: number | bigint }>(
        "SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND = 'Binlog Dump' AND USER = ?",
        [workerUser(env)],
      );
      expect(dumps).toHaveLength(1);
      return dumps[0]!;
    });
    const account = `'${workerUser(env)}'@'%'`;
    await dashboard.query(`REVOKE REPLICATION SLAVE, BINLOG MONITOR ON *.* FROM ${account}`);
    // A revoke leaves the dump under way running: the server ends it here, as a restart would.
    await dashboard.query(`KILL ${dump.ID}`);
    await eventually(
      async () => expect(await sourceShown(url)).toEqual({ healthz: 'poll', metric: 'poll' }),
      15_000,
      200,
    );

    // Polled at the normal rate, not the safety net's 30 s: a new member within seconds.
    const added = await dashboard.insertMember({ branch_id: branch });
    await eventually(
      async () =>
        expect(await readModel.member.findUnique({ where: { id: added } })).not.toBeNull(),
      10_000,
    );
    // A hard delete polling cannot see: still held while the log is refused.
    await dashboard.query('DELETE FROM member_packages WHERE id = ?', [sold]);
    await pause(3000);
    expect(await readModel.memberPackage.findUnique({ where: { id: sold } })).not.toBeNull();

    await dashboard.query(`GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO ${account}`);
    await eventually(
      async () => expect(await sourceShown(url)).toEqual({ healthz: 'binlog', metric: 'binlog' }),
      15_000,
      200,
    );
    await eventually(
      async () =>
        expect(await readModel.memberPackage.findUnique({ where: { id: sold } })).toBeNull(),
      10_000,
    );
    const { total, reports } = await verifyEnvironment(env);
    expect(reports).toEqual([]);
    expect(total).toBe(0);
  }, 120_000);

  it('when its login is refused, then it polls until let in again, then reads the log from its stored position', async () => {
    const url = `http://127.0.0.1:${(await worker!.waitForLine((l) => l.msg === 'sync worker started')).metricsPort as number}`;
    const branch = await dashboard.insertBranch();
    const sold = await dashboard.insertMemberPackage({
      member_id: await dashboard.insertMember({ branch_id: branch }),
      package_id: await dashboard.insertPackage(),
      branch_id: branch,
    });
    await eventually(
      async () =>
        expect(await readModel.memberPackage.findUnique({ where: { id: sold } })).not.toBeNull(),
      10_000,
    );
    expect(await sourceShown(url)).toEqual({ healthz: 'binlog', metric: 'binlog' });

    const from = worker!.lines.length;
    const account = `'${workerUser(env)}'@'%'`;
    const password = decodeURIComponent(new URL(env.legacyReadOnlyUrl).password);
    await dashboard.query(`ALTER USER ${account} IDENTIFIED BY ?`, ['not the worker password']);
    const [dump] = await dashboard.query<{ ID: number | bigint }>(
      "SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND = 'Binlog Dump' AND USER = ?",
      [workerUser(env)],
    );
    // A changed password leaves open connections in: the dump is ended, its next login refused.
    await dashboard.query(`KILL ${dump!.ID}`);
    await eventually(
      async () => expect(await sourceShown(url)).toEqual({ healthz: 'poll', metric: 'poll' }),
      15_000,
      200,
    );
    // Refused, not silent: the position is kept, no new one stored nor a reconciliation pass.
    const fallbacks = worker!.lines.slice(from).filter((l) => l.msg?.includes('reconciliation'));
    expect(fallbacks).toEqual([]);
    // Made while the log is refused; polling cannot see a hard delete.
    await dashboard.query('DELETE FROM member_packages WHERE id = ?', [sold]);

    await dashboard.query(`ALTER USER ${account} IDENTIFIED BY ?`, [password]);
    await eventually(
      async () => expect(await sourceShown(url)).toEqual({ healthz: 'binlog', metric: 'binlog' }),
      15_000,
      200,
    );
    await eventually(
      async () =>
        expect(await readModel.memberPackage.findUnique({ where: { id: sold } })).toBeNull(),
      10_000,
    );
    const { total, reports } = await verifyEnvironment(env);
    expect(reports).toEqual([]);
    expect(total).toBe(0);
  }, 120_000);
});
