// Every resource synced into the read model, derived fields following their sources, and the
// deletes and in-place changes that only the reconciliation can see.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { deleteAndFlipUnseen } from '../support/random-dashboard.js';
import { reconcileOnce, syncOnce } from '../support/sync-once.js';
import { verifyEnvironment } from '../support/verify.js';
import { createLegacyClient } from '#common/legacy-database.js';
import { DEFAULT_SYNC_OPTIONS } from '../../worker/src/sync/sync-databases.js';
import { syncTable } from '../../worker/src/sync/sync-engine.js';
import { syncTableNamed } from '#read-model/tables/index.js';

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let readModel: ReadModelClient;

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  await generateLegacyData(dashboard.conn, { scale: 0.5, seed: 7 });
  readModel = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  await syncOnce(env);
});

afterAll(async () => {
  await readModel?.$disconnect();
  await dashboard?.close();
  await env?.destroy();
});

describe('the read model of every resource', () => {
  it('when a generated dashboard is synced, then verify finds no difference in any table', async () => {
    const { total, reports } = await verifyEnvironment(env);
    expect(reports).toEqual([]);
    expect(total).toBe(0);
    expect(await readModel.presenceRecord.count()).toBeGreaterThan(0);
    expect(await readModel.installmentPlan.count()).toBeGreaterThan(0);
  });

  it('then staff secrets never enter the read model', async () => {
    const columns = await readModel.$queryRaw<{ column_name: string }[]>`
      SELECT column_name FROM information_schema.columns WHERE table_name = 'staff'`;
    const names = columns.map((c) => c.column_name);
    expect(names).toContain('full_name');
    expect(names).not.toContain('password_hash');
    expect(names).not.toContain('remember_token');
  });

  it('when sources of derived fields change, then every copy follows', async () => {
    const [staff] = await dashboard.query<{ id: number; branch_id: number; role_id: number }>(
      'SELECT id, branch_id, role_id FROM staff LIMIT 1',
    );
    const [lesson] = await dashboard.query<{ member_id: number; package_id: number }>(
      'SELECT member_id, package_id FROM private_lessons LIMIT 1',
    );
    const [unpaid] = await dashboard.query<{ id: number; plan_id: number }>(
      'SELECT id, plan_id FROM installments WHERE is_paid = 0 LIMIT 1',
    );
    const [product] = await dashboard.query<{ category_id: number }>(
      'SELECT category_id FROM market_products LIMIT 1',
    );
    await dashboard.update('branches', staff!.branch_id, { name: 'Yeni Şube Adı' });
    await dashboard.query('UPDATE roles SET name = ? WHERE id = ?', [
      'Baş Antrenör',
      staff!.role_id,
    ]);
    await dashboard.update('packages', lesson!.package_id, { name: 'Yeniden Adlandırılmış Paket' });
    await dashboard.update('members', lesson!.member_id, { full_name: 'Yeni', surname: 'Adlı' });
    await dashboard.update('installments', unpaid!.id, {
      is_paid: 1,
      paid_at: '2026-11-01 12:00:00',
    });
    await dashboard.query('UPDATE market_categories SET name = ? WHERE id = ?', [
      'Yeni Kategori',
      product!.category_id,
    ]);

    await syncOnce(env);
    await reconcileOnce(env, readModel);

    const staffRow = await readModel.staff.findUniqueOrThrow({ where: { id: staff!.id } });
    expect(staffRow.branch_name).toBe('Yeni Şube Adı');
    expect(staffRow.role_name).toBe('Baş Antrenör');
    const lessons = await readModel.privateLesson.findMany({
      where: { member_id: lesson!.member_id },
    });
    expect(lessons.every((l) => l.member_name === 'Yeni Adlı')).toBe(true);
    expect(
      (await readModel.privateLesson.findMany({ where: { package_id: lesson!.package_id } })).every(
        (l) => l.package_name === 'Yeniden Adlandırılmış Paket',
      ),
    ).toBe(true);
    const products = await readModel.marketProduct.findMany({
      where: { category_id: product!.category_id },
    });
    expect(products.every((p) => p.category_name === 'Yeni Kategori')).toBe(true);
    const [collected] = await dashboard.query<{ total: string }>(
      'SELECT SUM(amount) AS total FROM installments WHERE plan_id = ? AND is_paid = 1',
      [unpaid!.plan_id],
    );
    const plan = await readModel.installmentPlan.findUniqueOrThrow({
      where: { id: unpaid!.plan_id },
    });
    expect(plan.collected_amount.toFixed(2)).toBe(Number(collected!.total).toFixed(2));
    expect((await verifyEnvironment(env)).reports).toEqual([]);
  });

  it('when rows are hard-deleted or changed without updated_at, then the reconciliation repairs them once no first load goes on', async () => {
    const unseen = await deleteAndFlipUnseen(dashboard);
    await dashboard.query(
      'DELETE FROM notifications WHERE id = (SELECT MAX(id) FROM (SELECT id FROM notifications) n)',
    );

    await syncOnce(env);
    expect((await verifyEnvironment(env)).total).toBeGreaterThan(0);
    // While another table's first load goes on, passes wait for it.
    const presence = await readModel.syncState.findUniqueOrThrow({
      where: { table_name: 'presence_records' },
    });
    await readModel.syncState.update({
      where: { table_name: 'presence_records' },
      data: { synced_at: null, updated_at: new Date() },
    });
    await reconcileOnce(env, readModel);
    expect((await verifyEnvironment(env)).total).toBeGreaterThan(0);
    await readModel.syncState.update({
      where: { table_name: 'presence_records' },
      data: { synced_at: presence.synced_at },
    });
    await reconcileOnce(env, readModel);

    expect(
      await readModel.memberPackage.findUnique({ where: { id: unseen.deletedMemberPackageId } }),
    ).toBeNull();
    expect(
      (await readModel.notification.findUniqueOrThrow({ where: { id: unseen.notificationId } }))
        .is_read,
    ).toBe(unseen.isRead);
    expect((await verifyEnvironment(env)).reports).toEqual([]);
  });
});

describe('a table loaded from scratch again', () => {
  const oddName = 'Tab\there, back\\slash,\r\nnew line \\N';

  it('when the read model still holds its rows, then they are updated, not duplicated', async () => {
    const [member] = await dashboard.query<{ id: number }>('SELECT id FROM members LIMIT 1');
    await dashboard.update('members', member!.id, { full_name: oddName });
    // No position: the members' next run is a first load, whose COPY meets the rows held.
    await readModel.syncState.delete({ where: { table_name: 'members' } });

    await syncOnce(env);

    const row = await readModel.member.findUniqueOrThrow({ where: { id: member!.id } });
    expect(row.full_name).toBe(oddName);
    expect((await verifyEnvironment(env)).reports).toEqual([]);
  });

  it('when the read model is empty, then COPY keeps tabs, line breaks and backslashes', async () => {
    const [member] = await dashboard.query<{ id: number }>('SELECT id FROM members LIMIT 1');
    await dashboard.update('members', member!.id, { surname: oddName });
    await readModel.$executeRaw`DELETE FROM members`;
    await readModel.syncState.delete({ where: { table_name: 'members' } });

    await syncOnce(env);

    const row = await readModel.member.findUniqueOrThrow({ where: { id: member!.id } });
    expect(row.surname).toBe(oddName);
    expect((await verifyEnvironment(env)).reports).toEqual([]);
  });

  it('when rows change behind a first load read in key order, then they arrive once it has read every key', async () => {
    const members = syncTableNamed('members');
    const legacy = createLegacyClient(env.legacyReadOnlyUrl, { poolSize: 2 });
    const [first] = await dashboard.query<{ id: number }>('SELECT MIN(id) AS id FROM members');
    await readModel.$executeRaw`DELETE FROM members`;
    await readModel.syncState.delete({ where: { table_name: 'members' } });
    try {
      // One batch, then the run's time is up: the load stands part way through the keys.
      const options = { ...DEFAULT_SYNC_OPTIONS, batchSize: 20, timeBudgetMs: 0 };
      await syncTable(members, { legacy, readModel }, options);
      const during = await readModel.syncState.findUniqueOrThrow({
        where: { table_name: 'members' },
      });
      expect(during.load_cursor).toBeGreaterThan(0n);
      expect(during.synced_at).toBeNull();
      // A row the load has passed changes; the dashboard bumps its updated_at.
      await dashboard.update('members', first!.id, { full_name: 'Geçilmiş' });

      let run;
      do run = await syncTable(members, { legacy, readModel });
      while (!run.caughtUp);
    } finally {
      await legacy.$disconnect();
    }

    const after = await readModel.syncState.findUniqueOrThrow({ where: { table_name: 'members' } });
    expect(after.load_cursor).toBeNull();
    const row = await readModel.member.findUniqueOrThrow({ where: { id: first!.id } });
    expect(row.full_name).toBe('Geçilmiş');
    expect((await verifyEnvironment(env)).reports).toEqual([]);
  });

  it('when a table loads from scratch, then the indexes its copies are looked up by stay', async () => {
    const installments = syncTableNamed('installments');
    const legacy = createLegacyClient(env.legacyReadOnlyUrl, { poolSize: 2 });
    await readModel.$executeRaw`DELETE FROM installments`;
    await readModel.syncState.delete({ where: { table_name: 'installments' } });
    const indexes = async () =>
      (
        await readModel.$queryRaw<{ indexname: string }[]>`
          SELECT indexname FROM pg_indexes WHERE tablename = 'installments' ORDER BY 1`
      ).map((index) => index.indexname);
    const before = await indexes();
    try {
      // One batch, then the run's time is up: the load stands part way through the keys.
      const options = { ...DEFAULT_SYNC_OPTIONS, batchSize: 20, timeBudgetMs: 0 };
      await syncTable(installments, { legacy, readModel }, options);
      // The plans' collected_amount sums installments by plan_id, once per plan it refreshes.
      expect(await indexes()).toContain('installments_plan_id_idx');
      let run;
      do run = await syncTable(installments, { legacy, readModel });
      while (!run.caughtUp);
    } finally {
      await legacy.$disconnect();
    }
    expect(await indexes()).toEqual(before);
    expect((await verifyEnvironment(env)).reports).toEqual([]);
  });

  it('when a first load catches up, then the copies of its values in other tables follow it', async () => {
    const [presence] = await dashboard.query<{ member_id: number }>(
      'SELECT member_id FROM presence_logs LIMIT 1',
    );
    const memberId = presence!.member_id;
    await dashboard.update('members', memberId, { full_name: 'İlk', surname: 'Yükleme' });
    // Copies older than the member's row, as a presence batch read before a rename leaves them;
    // a first load refreshes them once, at its catch-up, not per batch.
    await readModel.presenceRecord.updateMany({
      where: { member_id: memberId },
      data: { member_name: 'eski ad' },
    });
    await readModel.$executeRaw`DELETE FROM members`;
    await readModel.syncState.delete({ where: { table_name: 'members' } });

    await syncOnce(env);

    const copies = await readModel.presenceRecord.findMany({ where: { member_id: memberId } });
    expect(copies.length).toBeGreaterThan(0);
    expect(copies.every((copy) => copy.member_name === 'İlk Yükleme')).toBe(true);
    expect((await verifyEnvironment(env)).reports).toEqual([]);
  });
});
