// Writes to the legacy database the way the dashboard does: its own connection with
// `SET time_zone = '+03:00'`, plain SQL, MySQL maintaining updated_at.
import { randomBytes } from 'node:crypto';
import type { Connection } from 'mariadb';
import { connectLegacy } from '../../scripts/legacy/legacy-database.js';

type Values = Record<string, string | number | boolean | null | Date>;

let sequence = 0;
const unique = () => `${Date.now() % 1_000_000}${++sequence}${randomBytes(2).toString('hex')}`;

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

  async close(): Promise<void> {
    await this.conn.end();
  }
}
