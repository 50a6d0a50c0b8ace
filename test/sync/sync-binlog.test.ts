// SYNC_SOURCE=binlog against a MariaDB of the test's own writing a row-based binary log: every
// kind of change arrives through the log, including those polling leaves to the reconciliation
// (a hard delete, a change to a table without updated_at). Polling runs only every 30 s and the
// reconciliation is set an hour apart, so whatever arrives within seconds came from the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { verifyEnvironment } from '../support/verify.js';
import { eventually } from '../support/eventually.js';
import { startWorker } from '../support/worker.js';

const BINLOG = { RECONCILE_INTERVAL_MS: '3600000' };

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let worker: Awaited<ReturnType<typeof startWorker>>;
let branchId: number;
let memberId: number;
let packageId: number;

beforeAll(async () => {
  // A MariaDB of its own writing the binary log; the worker's user has the replication grants.
  env = await createTestEnvironment({ syncSource: 'binlog' });
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  branchId = await dashboard.insertBranch();
  memberId = await dashboard.insertMember({ branch_id: branchId });
  packageId = await dashboard.insertPackage();
  worker = await startWorker(env, { settings: BINLOG });
  // The first loads, then the log followed from the position stored before them.
  await eventually(async () => {
    const [row] = await worker.readModel.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n
      FROM sync_state WHERE synced_at IS NOT NULL`;
    expect(Number(row?.n)).toBe(14);
  }, 30_000);
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await dashboard?.close();
  await env?.destroy().catch(() => undefined);
});

async function held(table: string, id: number): Promise<Record<string, unknown> | undefined> {
  const rows = await worker.readModel.$queryRawUnsafe<Record<string, unknown>[]>(
    `SELECT * FROM ${table} WHERE id = $1`,
    id,
  );
  return rows[0];
}

describe('change capture from the binary log', () => {
  it('when rows are inserted, updated, soft and hard deleted, then each change arrives from the log', async () => {
    const other = await dashboard.insertMember({ branch_id: branchId, full_name: 'Çağrı' });
    await eventually(async () => expect((await held('members', other))?.full_name).toBe('Çağrı'));

    await dashboard.update('members', other, { full_name: 'İlkay' });
    await eventually(async () => expect((await held('members', other))?.full_name).toBe('İlkay'));

    await dashboard.update('members', other, { is_deleted: 1 });
    await eventually(async () => expect(await held('members', other)).toBeUndefined());

    const sold = await dashboard.insertMemberPackage({
      member_id: memberId,
      package_id: packageId,
      branch_id: branchId,
    });
    await eventually(async () => expect(await held('member_packages', sold)).toBeDefined());
    await dashboard.query('DELETE FROM member_packages WHERE id = ?', [sold]);
    const deletedAt = Date.now();
    await eventually(
      async () => expect(await held('member_packages', sold)).toBeUndefined(),
      1000,
      20,
    );
    expect(Date.now() - deletedAt).toBeLessThan(1000);
  });

  it('when a table without updated_at changes in place and loses a row, then both arrive', async () => {
    const note = await dashboard.insertNotification({ branch_id: branchId });
    const gone = await dashboard.insertNotification({ branch_id: null });
    await eventually(async () => expect(await held('notifications', gone)).toBeDefined());
    await dashboard.update('notifications', note, { title: 'Güncellendi' });
    await dashboard.query('DELETE FROM notifications WHERE id = ?', [gone]);
    await eventually(async () => {
      expect((await held('notifications', note))?.title).toBe('Güncellendi');
      expect(await held('notifications', gone)).toBeUndefined();
    });
  });

  it('when one transaction changes rows of three tables, then all of them arrive', async () => {
    await dashboard.query('START TRANSACTION');
    const member = await dashboard.insertMember({ branch_id: branchId, full_name: 'Şule' });
    const sold = await dashboard.insertMemberPackage({
      member_id: member,
      package_id: packageId,
      branch_id: branchId,
    });
    await dashboard.query('UPDATE branches SET name = ? WHERE id = ?', ['Kadıköy Şube', branchId]);
    await dashboard.query('COMMIT');
    await eventually(async () => {
      expect((await held('members', member))?.full_name).toBe('Şule');
      expect(await held('member_packages', sold)).toBeDefined();
      expect((await held('branches', branchId))?.name).toBe('Kadıköy Şube');
      // The joined copy follows: the member row is read again through its source query.
      expect((await held('members', member))?.branch_name).toBe('Kadıköy Şube');
    });
    expect((await verifyEnvironment(env)).reports).toEqual([]);
  });

  it('when commits touch only tables the read model does not hold, then the stored position still follows', async () => {
    for (let n = 1; n <= 3; n += 1) {
      await dashboard.query(
        'INSERT INTO member_counters (branch_id, last_no) VALUES (?, ?) ON DUPLICATE KEY UPDATE last_no = ?',
        [branchId, n, n],
      );
    }
    const [end] = await dashboard.query<{ File: string; Position: bigint }>('SHOW MASTER STATUS');
    // Within a second or two: a restart re-reads seconds of log, not everything since the last
    // change of a synced table.
    await eventually(
      async () => {
        await dashboard.query(
          'UPDATE member_counters SET last_no = last_no + 1 WHERE branch_id = ?',
          [branchId],
        );
        const row = await worker.readModel.binlogPosition.findUniqueOrThrow({ where: { id: 1 } });
        expect(row.file).toBe(end!.File);
        expect(row.position).toBeGreaterThanOrEqual(BigInt(end!.Position));
      },
      5000,
      250,
    );
  });
});

describe('a stored position the server no longer holds', () => {
  it('when its log file is purged, then the worker polls, reconciles and follows the log again', async () => {
    const sold = await dashboard.insertMemberPackage({
      member_id: memberId,
      package_id: packageId,
      branch_id: branchId,
    });
    await eventually(async () => expect(await held('member_packages', sold)).toBeDefined());
    await worker.close();
    // Deleted while no worker follows, then the log holding the delete purged: error 1236.
    await dashboard.query('DELETE FROM member_packages WHERE id = ?', [sold]);
    await dashboard.query('FLUSH BINARY LOGS');
    const [end] = await dashboard.query<{ File: string }>('SHOW MASTER STATUS');
    // The server keeps a file a replication connection still reads: retried until it is gone.
    await eventually(async () => {
      await dashboard.query(`PURGE BINARY LOGS TO '${end!.File}'`);
      const logs = await dashboard.query<{ Log_name: string }>('SHOW BINARY LOGS');
      expect(logs.map((l) => l.Log_name)).toEqual([end!.File]);
    }, 10_000);

    worker = await startWorker(env, { settings: BINLOG });
    const sources = new Set<string>();
    const watching = setInterval(() => sources.add(worker.runner.source()), 10);
    try {
      await eventually(() => expect(sources).toContain('poll'), 30_000, 20);
      await eventually(async () => expect(await held('member_packages', sold)).toBeUndefined());
      await eventually(() => expect(worker.runner.source()).toBe('binlog'), 30_000);
    } finally {
      clearInterval(watching);
    }
    const position = await worker.readModel.binlogPosition.findUniqueOrThrow({ where: { id: 1 } });
    expect(position.file).toBe(end!.File);
    // Counted for the console's sync health page.
    expect(position.fallbacks).toBeGreaterThanOrEqual(1);
    expect(position.fell_back_at).not.toBeNull();

    // And the log is followed again: a delete within seconds.
    const again = await dashboard.insertMemberPackage({
      member_id: memberId,
      package_id: packageId,
      branch_id: branchId,
    });
    await eventually(
      async () => expect(await held('member_packages', again)).toBeDefined(),
      10_000,
    );
    await dashboard.query('DELETE FROM member_packages WHERE id = ?', [again]);
    await eventually(
      async () => expect(await held('member_packages', again)).toBeUndefined(),
      3000,
    );
  }, 90_000);
});
