// Writes to the legacy database the way the dashboard does: its own connection with
// `SET time_zone = '+03:00'`, plain SQL, MySQL maintaining updated_at.
import { randomBytes } from 'node:crypto';
import type { Connection } from 'mariadb';
import { instantToLegacyWallClock } from '#common/legacy-time.js';
import { connectLegacy } from '../../scripts/legacy/legacy-database.js';

export type Values = Record<string, string | number | boolean | null | Date>;

let sequence = 0;
const unique = () => `${Date.now() % 1_000_000}${++sequence}${randomBytes(2).toString('hex')}`;

/** A DATETIME value as the dashboard writes it: Istanbul wall-clock time of `instant`. */
export function istanbulDateTime(instant = new Date()): string {
  return instantToLegacyWallClock(instant).toISOString().slice(0, 19).replace('T', ' ');
}

export class LegacyDashboard {
  private constructor(readonly conn: Connection) {}

  static async connect(legacyUrl: string): Promise<LegacyDashboard> {
    return new LegacyDashboard(await connectLegacy(legacyUrl));
  }

  async insert(table: string, values: Values): Promise<number> {
    const columns = Object.keys(values);
    const result = await this.conn.query<{ insertId: bigint | number }>(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      Object.values(values),
    );
    return Number(result.insertId);
  }

  /** An UPDATE as the dashboard issues it: MySQL bumps updated_at by itself. */
  async update(table: string, id: number, values: Values): Promise<void> {
    const assignments = Object.keys(values).map((c) => `${c} = ?`);
    await this.conn.query(`UPDATE ${table} SET ${assignments.join(', ')} WHERE id = ?`, [
      ...Object.values(values),
      id,
    ]);
  }

  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.conn.query<T[]>(sql, params);
  }

  insertBranch(values: Values = {}): Promise<number> {
    return this.insert('branches', { name: `Şube ${unique()}`, status: 'Aktif', ...values });
  }

  insertMember(values: Values & { branch_id: number }): Promise<number> {
    const n = unique();
    return this.insert('members', {
      full_name: 'Ayşe',
      surname: 'Yılmaz',
      phone: `05${n.padStart(9, '0').slice(-9)}`,
      member_no: `M${n}`,
      qr_code: `QR${n}`,
      ...values,
    });
  }

  insertPackage(values: Values = {}): Promise<number> {
    return this.insert('packages', { name: `Paket ${unique()}`, price: 1000, ...values });
  }

  insertMemberPackage(
    values: Values & { member_id: number; package_id: number; branch_id: number },
  ): Promise<number> {
    return this.insert('member_packages', {
      start_date: '2026-11-01',
      end_date: '2026-12-01',
      status: 'Aktif',
      price_paid: 900,
      ...values,
    });
  }

  /** An income by default, dated now. */
  insertTransaction(values: Values & { branch_id: number }): Promise<number> {
    return this.insert('financial_transactions', {
      transaction_type: 'Gelir',
      transaction_code: 'PAKET_SATIS',
      amount: 100,
      payment_method: 'Nakit',
      transaction_date: istanbulDateTime(),
      ...values,
    });
  }

  insertInstallmentPlan(
    values: Values & { member_id: number; branch_id: number },
  ): Promise<number> {
    return this.insert('installment_plans', { total_amount: 3000, ...values });
  }

  insertInstallment(values: Values & { plan_id: number }): Promise<number> {
    return this.insert('installments', { due_date: '2026-12-01', amount: 1000, ...values });
  }

  insertRole(name = 'Resepsiyon'): Promise<number> {
    return this.insert('roles', { name });
  }

  insertStaff(values: Values & { branch_id: number; role_id: number }): Promise<number> {
    const n = unique();
    return this.insert('staff', {
      full_name: 'Personel',
      username: `user${n}`,
      email: `user${n}@example.com`,
      password_hash: `$2y$10$${n}`,
      ...values,
    });
  }

  insertNotification(values: Values & { branch_id: number | null }): Promise<number> {
    return this.insert('notifications', { title: 'Duyuru', message: 'Metin', ...values });
  }

  insertPrivateLesson(values: Values & { member_id: number; package_id: number }): Promise<number> {
    return this.insert('private_lessons', { total_lessons: 10, remaining_lessons: 10, ...values });
  }

  insertPresence(values: Values & { member_id: number; branch_id: number }): Promise<number> {
    return this.insert('presence_logs', {
      entry_time: '2026-11-21 09:00:00',
      access_method: 'QR',
      ...values,
    });
  }

  insertMarketCategory(values: Values = {}): Promise<number> {
    return this.insert('market_categories', { name: `Kategori ${unique()}`, ...values });
  }

  insertMarketProduct(values: Values & { category_id: number }): Promise<number> {
    return this.insert('market_products', { name: `Ürün ${unique()}`, price: 50, ...values });
  }

  async close(): Promise<void> {
    await this.conn.end();
  }
}
