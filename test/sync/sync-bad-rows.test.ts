// A ten-year-old dashboard database holds rows no API field can hold as they are: zero dates
// written by sessions without NO_ZERO_DATE, values outside the documented sets, orphan foreign
// keys from imports run with FOREIGN_KEY_CHECKS=0, NUL bytes, numbers PostgreSQL refuses. None of
// them may stop its table; the ones that truly cannot be represented are set aside and reported.
// With each sync source: rows read again after a binary log event take the same road.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestEnvironment,
  SYNC_SOURCES,
  type TestEnvironment,
} from '../support/environment.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { verifyEnvironment } from '../support/verify.js';
import { eventually } from '../support/eventually.js';
import { startWorker } from '../support/worker.js';

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let worker: Awaited<ReturnType<typeof startWorker>>;
let branchId: number;
let zeroTimes: number;

describe.each(SYNC_SOURCES)('with SYNC_SOURCE=%s', (source) => {
  beforeAll(async () => {
    env = await createTestEnvironment({ syncSource: source });
    dashboard = await LegacyDashboard.connect(env.legacyUrl);
    // How PHP dashboards and their import scripts often run.
    await dashboard.query("SET SESSION sql_mode = ''");
    await dashboard.query('SET SESSION foreign_key_checks = 0');
    branchId = await dashboard.insertBranch({ name: 'Moda' });
    worker = await startWorker(env, { intervalMs: 300, reconcileIntervalMs: 2000 });
  });

  afterAll(async () => {
    await worker?.close();
    await dashboard?.close();
    await env?.destroy();
  });

  const member = async (id: number) =>
    worker.readModel.member.findUnique({ where: { id } }).then((m) => m ?? undefined);
  const rejects = () =>
    worker.readModel.syncReject.findMany({ orderBy: [{ table_name: 'asc' }, { row_id: 'asc' }] });

  describe('bad legacy rows', () => {
    it('when a member with a zero birth_date is followed by ordinary members, then they appear within 5 s and the zero date reads null', async () => {
      const zero = await dashboard.insertMember({ branch_id: branchId, birth_date: '0000-00-00' });
      const ordinary = [
        await dashboard.insertMember({ branch_id: branchId, birth_date: '1990-05-06' }),
        await dashboard.insertMember({ branch_id: branchId }),
      ];
      await eventually(async () => {
        for (const id of ordinary) expect(await member(id), `member ${id}`).toBeDefined();
      }, 5000);
      expect((await member(ordinary[0]!))!.birth_date!.toISOString().slice(0, 10)).toBe(
        '1990-05-06',
      );
      expect(await member(zero)).toMatchObject({ id: zero, birth_date: null });
    });

    it('when rows hold zero datetimes, odd values and orphan keys, then the representable ones flow and the others are set aside with their reason', async () => {
      zeroTimes = await dashboard.insertMember({
        branch_id: branchId,
        created_at: '0000-00-00 00:00:00',
        updated_at: '0000-00-00 00:00:00',
      });
      const zeroCreated = await dashboard.insertMember({
        branch_id: branchId,
        created_at: '0000-00-00 00:00:00',
        registered_at: '2020-00-10 10:00:00',
      });
      const badStatus = await dashboard.insertMember({ branch_id: branchId, status: 'Silindi' });
      const badGender = await dashboard.insertMember({ branch_id: branchId, gender: 'X' });
      const orphan = await dashboard.insertMember({ branch_id: 999_999 });
      const outOfRange = await dashboard.insertMember({ branch_id: 3_000_000_000 });
      const nul = await dashboard.insertMember({ branch_id: branchId, full_name: 'Ay\0şe' });
      const after = await dashboard.insertMember({ branch_id: branchId });

      await eventually(async () => expect(await member(after)).toBeDefined(), 5000);
      const created = (await member(zeroCreated))!;
      expect(created.created_at).toEqual(created.updated_at);
      expect(created.registered_at).toEqual(created.created_at);
      expect((await member(badGender))!.gender).toBeNull();
      expect((await member(orphan))!.branch_name).toBe('');
      expect((await member(nul))!.full_name).toBe('Ayşe');

      // A zero updated_at sorts before the sync position: reconciliation finds that one.
      await eventually(async () => {
        const set = (await rejects()).map((r) => [r.table_name, Number(r.row_id), r.reason]);
        expect(set).toEqual([
          ['members', zeroTimes, 'created_at and updated_at: both zero or invalid'],
          ['members', badStatus, 'status: "" is not one of Aktif, Pasif'],
          [
            'members',
            outOfRange,
            'read model refused the row: value "3000000000" is out of range for type integer',
          ],
        ]);
      }, 6000);
      for (const id of [zeroTimes, badStatus, outOfRange]) expect(await member(id)).toBeUndefined();

      const { total, reports } = await verifyEnvironment(env);
      expect(total).toBe(0);
      expect(reports).toEqual([]);
    });

    it('when a rejected row is corrected, then it is retried, appears and leaves the rejects', async () => {
      const [bad] = await rejects();
      await dashboard.query(
        'UPDATE members SET created_at = NOW(), updated_at = NOW() WHERE id = ?',
        [Number(bad!.row_id)],
      );
      await eventually(async () => expect(await member(Number(bad!.row_id))).toBeDefined(), 5000);
      expect((await rejects()).map((r) => Number(r.row_id))).not.toContain(Number(bad!.row_id));
    });
  });
});
