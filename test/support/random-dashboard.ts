// Random dashboard-style mutations over a generated legacy database, for the sync tests: what
// the PHP dashboard does all day, including the changes that leave no trace in updated_at.
import type { LegacyDashboard } from './legacy-dashboard.js';

type Mutation = (d: LegacyDashboard, pick: Picker) => Promise<unknown>;

export class Picker {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state * 1664525 + 1013904223) >>> 0;
    return this.state / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  from<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
}

const randomId = async (d: LegacyDashboard, pick: Picker, table: string, where = '1 = 1') => {
  const [row] = await d.query<{ lo: number | null; hi: number | null }>(
    `SELECT MIN(id) AS lo, MAX(id) AS hi FROM ${table} WHERE ${where}`,
  );
  if (!row || row.lo === null || row.hi === null) return null;
  const [hit] = await d.query<{ id: number }>(
    `SELECT id FROM ${table} WHERE ${where} AND id >= ? ORDER BY id LIMIT 1`,
    [pick.int(Number(row.lo), Number(row.hi))],
  );
  return hit ? Number(hit.id) : null;
};

const NAMES = ['Şule', 'İlker', 'Ömer', 'Çiğdem', 'Ilgaz', 'Gökçe', 'Ümran'];

/** Runs writes as an import script or an old PHP page does: no strict mode, no FK checks. */
async function loosely(d: LegacyDashboard, write: () => Promise<unknown>) {
  await d.query("SET SESSION sql_mode = '', foreign_key_checks = 0");
  try {
    await write();
  } finally {
    await d.query('SET SESSION sql_mode = DEFAULT, foreign_key_checks = 1');
  }
}

/** Changes no keyset poll can see, and rows written the way a ten-year-old dashboard writes. */
const LEGACY_ODDITIES: Record<string, Mutation> = {
  async importWithOldUpdatedAt(d, pick) {
    const branch = await randomId(d, pick, 'branches');
    if (branch)
      await d.insertMember({
        branch_id: branch,
        full_name: pick.from(NAMES),
        created_at: '2019-03-01 10:00:00',
        updated_at: '2019-03-01 10:00:00',
      });
  },
  async updateKeepingUpdatedAt(d, pick) {
    const id = await randomId(d, pick, 'members', 'is_deleted = 0');
    if (id)
      await d.query('UPDATE members SET surname = ?, updated_at = updated_at WHERE id = ?', [
        pick.from(NAMES),
        id,
      ]);
  },
  async priceKeepingUpdatedAt(d, pick) {
    const id = await randomId(d, pick, 'market_products');
    if (id)
      await d.query('UPDATE market_products SET stock = ?, updated_at = updated_at WHERE id = ?', [
        pick.int(0, 99),
        id,
      ]);
  },
  async zeroDates(d, pick) {
    const id = await randomId(d, pick, 'members', 'is_deleted = 0');
    if (id)
      await loosely(d, () =>
        d.query("UPDATE members SET birth_date = '0000-00-00', registered_at = ? WHERE id = ?", [
          pick.from(['0000-00-00 00:00:00', '2020-00-10 10:00:00', '2021-05-01 10:00:00']),
          id,
        ]),
      );
  },
  async zeroDatetimeImport(d, pick) {
    const branch = await randomId(d, pick, 'branches');
    // Both timestamps zero: the one kind of member no API field can represent.
    if (branch)
      await loosely(d, () =>
        d.insertMember({
          branch_id: branch,
          created_at: '0000-00-00 00:00:00',
          updated_at: pick.from(['0000-00-00 00:00:00', '2026-11-01 08:00:00']),
        }),
      );
  },
  async outsideDocumentedSets(d, pick) {
    const id = await randomId(d, pick, 'members', 'is_deleted = 0');
    if (id) await loosely(d, () => d.update('members', id, { gender: pick.from(['X', '']) }));
  },
  async orphanForeignKeys(d, pick) {
    await loosely(d, async () => {
      await d.insertMember({ branch_id: 900_000 + pick.int(0, 99) });
      const member = await randomId(d, pick, 'members');
      if (member)
        await d.insert('member_packages', {
          member_id: member,
          package_id: 800_000,
          branch_id: 1,
          start_date: '2026-11-01',
          end_date: '2026-12-01',
          status: 'Aktif',
          price_paid: 100,
        });
    });
  },
};

export const MUTATIONS: Record<string, Mutation> = {
  ...LEGACY_ODDITIES,
  async insertMember(d, pick) {
    const branch = await randomId(d, pick, 'branches');
    if (branch) await d.insertMember({ branch_id: branch, full_name: pick.from(NAMES) });
  },
  async updateMember(d, pick) {
    const id = await randomId(d, pick, 'members', 'is_deleted = 0');
    if (id)
      await d.update('members', id, {
        full_name: pick.from(NAMES),
        balance: pick.int(0, 9999) / 10,
        status: pick.from(['Aktif', 'Pasif']),
      });
  },
  async moveMember(d, pick) {
    const id = await randomId(d, pick, 'members', 'is_deleted = 0');
    const branch = await randomId(d, pick, 'branches');
    if (id && branch) await d.update('members', id, { branch_id: branch });
  },
  async softDeleteMember(d, pick) {
    const id = await randomId(d, pick, 'members', 'is_deleted = 0');
    if (id) await d.update('members', id, { is_deleted: 1 });
  },
  async renameBranch(d, pick) {
    const id = await randomId(d, pick, 'branches');
    if (id) await d.update('branches', id, { name: `Şube ${pick.int(1, 1e6)}` });
  },
  async renamePackage(d, pick) {
    const id = await randomId(d, pick, 'packages');
    if (id) await d.update('packages', id, { name: `Paket ${pick.int(1, 1e6)}` });
  },
  async renameRole(d, pick) {
    const id = await randomId(d, pick, 'roles');
    if (id)
      await d.query('UPDATE roles SET name = ? WHERE id = ?', [`Rol ${pick.int(1, 1e6)}`, id]);
  },
  async renameCategory(d, pick) {
    const id = await randomId(d, pick, 'market_categories');
    if (id)
      await d.query('UPDATE market_categories SET name = ?, is_active = ? WHERE id = ?', [
        `Kategori ${pick.int(1, 1e6)}`,
        pick.int(0, 1),
        id,
      ]);
  },
  async payInstallment(d, pick) {
    const id = await randomId(d, pick, 'installments', 'is_paid = 0');
    if (id)
      await d.query('UPDATE installments SET is_paid = 1, paid_at = NOW() WHERE id = ?', [id]);
  },
  async flipNotification(d, pick) {
    const id = await randomId(d, pick, 'notifications');
    if (id) await d.query('UPDATE notifications SET is_read = 1 - is_read WHERE id = ?', [id]);
  },
  async deleteNotification(d, pick) {
    const id = await randomId(d, pick, 'notifications');
    if (id) await d.query('DELETE FROM notifications WHERE id = ?', [id]);
  },
  async insertNotification(d, pick) {
    await d.insert('notifications', {
      branch_id: pick.next() < 0.3 ? null : await randomId(d, pick, 'branches'),
      title: 'Duyuru',
      message: 'Test',
      type: pick.from(['Bilgi', 'Uyarı']),
    });
  },
  async deleteMemberPackage(d, pick) {
    const id = await randomId(d, pick, 'member_packages');
    if (id) await d.query('DELETE FROM member_packages WHERE id = ?', [id]);
  },
  async insertMemberPackage(d, pick) {
    const member = await randomId(d, pick, 'members');
    const pkg = await randomId(d, pick, 'packages');
    if (!member || !pkg) return;
    const [m] = await d.query<{ branch_id: number }>('SELECT branch_id FROM members WHERE id = ?', [
      member,
    ]);
    await d.insert('member_packages', {
      member_id: member,
      package_id: pkg,
      branch_id: m!.branch_id,
      start_date: '2026-11-01',
      end_date: '2026-12-01',
      status: 'Aktif',
      price_paid: 900,
    });
  },
  async presenceEntryAndExit(d, pick) {
    const member = await randomId(d, pick, 'members');
    if (!member) return;
    const [m] = await d.query<{ branch_id: number }>('SELECT branch_id FROM members WHERE id = ?', [
      member,
    ]);
    const id = await d.insert('presence_logs', {
      member_id: member,
      branch_id: m!.branch_id,
      entry_time: '2026-11-21 09:00:00',
      access_method: 'QR',
    });
    if (pick.next() < 0.5)
      await d.update('presence_logs', id, { exit_time: '2026-11-21 10:00:00', direction: 'Çıkış' });
  },
  async transaction(d, pick) {
    const member = await randomId(d, pick, 'members');
    const branch = await randomId(d, pick, 'branches');
    const id = await d.insert('financial_transactions', {
      member_id: member,
      transaction_type: 'Gelir',
      transaction_code: 'PAKET_SATIS',
      amount: pick.int(100, 9000),
      payment_method: 'Nakit',
      branch_id: branch,
      transaction_date: '2026-11-21 11:00:00',
      staff_id: await randomId(d, pick, 'staff'),
    });
    if (pick.next() < 0.2)
      await d.update('financial_transactions', id, {
        is_cancelled: 1,
        cancelled_at: '2026-11-21 11:05:00',
        cancel_reason: 'Hatalı',
      });
  },
  async lateCommit(d, pick) {
    // A transaction that commits seconds after the updated_at it wrote.
    const id = await randomId(d, pick, 'members', 'is_deleted = 0');
    if (id)
      await d.query(
        'UPDATE members SET surname = ?, updated_at = NOW() - INTERVAL ? SECOND WHERE id = ?',
        [pick.from(NAMES), pick.int(1, 8), id],
      );
  },
  async burstSameSecond(d, pick) {
    const lo = await randomId(d, pick, 'presence_logs');
    if (lo)
      await d.query('UPDATE presence_logs SET access_method = ? WHERE id BETWEEN ? AND ?', [
        pick.from(['QR', 'Kart', 'Manuel']),
        lo,
        lo + 30,
      ]);
  },
  async updateStaff(d, pick) {
    const id = await randomId(d, pick, 'staff');
    const branch = await randomId(d, pick, 'branches');
    if (id) await d.update('staff', id, { full_name: pick.from(NAMES), branch_id: branch });
  },
  async useLesson(d, pick) {
    const id = await randomId(d, pick, 'private_lessons', 'remaining_lessons > 0');
    if (id)
      await d.query(
        'UPDATE private_lessons SET remaining_lessons = remaining_lessons - 1 WHERE id = ?',
        [id],
      );
  },
  async productPrice(d, pick) {
    const id = await randomId(d, pick, 'market_products');
    if (id)
      await d.update('market_products', id, {
        price: pick.int(100, 9999) / 10,
        stock: pick.int(0, 50),
      });
  },
};

/** Applies `count` random mutations; returns how many of each kind ran. */
export async function mutateRandomly(d: LegacyDashboard, count: number, seed: number, pauseMs = 5) {
  const pick = new Picker(seed);
  const kinds = Object.keys(MUTATIONS);
  const applied: Record<string, number> = {};
  for (let i = 0; i < count; i++) {
    const kind = pick.from(kinds);
    await MUTATIONS[kind]!(d, pick);
    applied[kind] = (applied[kind] ?? 0) + 1;
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pick.int(0, pauseMs)));
  }
  return applied;
}

/**
 * The two changes keyset polling cannot see: a member package hard-deleted and a notification's
 * is_read flipped in place. Returns what the read model should then show.
 */
export async function deleteAndFlipUnseen(d: LegacyDashboard) {
  const [mp] = await d.query<{ id: number }>('SELECT id FROM member_packages ORDER BY id LIMIT 1');
  const [note] = await d.query<{ id: number; is_read: number }>(
    'SELECT id, is_read FROM notifications ORDER BY id LIMIT 1',
  );
  await d.query('DELETE FROM member_packages WHERE id = ?', [mp!.id]);
  await d.query('UPDATE notifications SET is_read = ? WHERE id = ?', [
    note!.is_read ? 0 : 1,
    note!.id,
  ]);
  return { deletedMemberPackageId: mp!.id, notificationId: note!.id, isRead: !note!.is_read };
}
