// The kept-totals migration (prisma/read-model/migrations/20261125050000_kept_totals) applied to a
// read model that already holds rows while a writer keeps changing them, as a deployment meets
// it: afterwards every kept total equals a count, and kept_counts still holds blocks only, so the
// previous version, which sums every row of a group there, answers the same totals meanwhile.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '#prisma/read-model/migrate.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';

const KEPT_TOTALS = '20261125050000_kept_totals';

let env: TestEnvironment;
let url: string;
let admin: pg.Client;
let database: string;

beforeAll(async () => {
  env = await createTestEnvironment();
  database = `${env.name}_kt`;
  admin = new pg.Client({ connectionString: env.databaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  const target = new URL(env.databaseUrl);
  target.pathname = `/${database}`;
  url = target.toString();
});

afterAll(async () => {
  await admin?.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await admin?.end();
  await env?.destroy();
});

const inTransaction = async (client: pg.Client, sql: string) => {
  await client.query('BEGIN');
  try {
    await client.query(sql);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
};

const MEMBER = `INSERT INTO members (id, full_name, phone, member_no, branch_id, branch_name,
    entry_status, balance, freeze_status, status, registered_at, qr_code, created_at, updated_at,
    search_text, phone_digits)`;
const memberValues = (id: string, branch: string, status: string) =>
  `SELECT ${id}, 'Üye', '05', 'M', ${branch}, 'Şube', false, 0, false, ${status}, now(), 'Q',
     now(), now(), 'uye', '05'`;

/** Per branch and status: the rows, kept_totals, and every kept_counts row summed. */
const groupsOf = async (client: pg.Client) =>
  (
    await client.query<{
      branch_key: number;
      status: string;
      rows: string;
      totals: string | null;
      blocks: string | null;
    }>(
      `SELECT branch_key, status, c.n AS rows, t.n AS totals, b.n AS blocks
       FROM (SELECT branch_id AS branch_key, status, count(*) AS n FROM members GROUP BY 1, 2) c
       FULL JOIN (SELECT branch_key, status, sum(n) AS n FROM kept_totals
                  WHERE table_name = 'members' GROUP BY 1, 2 HAVING sum(n) <> 0) t
         USING (branch_key, status)
       FULL JOIN (SELECT branch_key, status, sum(n) AS n FROM kept_counts
                  WHERE table_name = 'members' GROUP BY 1, 2 HAVING sum(n) <> 0) b
         USING (branch_key, status)
       ORDER BY 1, 2`,
    )
  ).rows;

describe('the kept-totals migration', () => {
  it('when it applies while members are written, then every total equals a count and kept_counts sums to the same', async () => {
    const client = new pg.Client({ connectionString: url });
    const writer = new pg.Client({ connectionString: url });
    await client.connect();
    await writer.connect();
    try {
      const migrations = readMigrations();
      for (const migration of migrations.filter((m) => m.name < KEPT_TOTALS)) {
        await inTransaction(client, migration.sql);
      }
      await client.query(
        `${MEMBER} ${memberValues('g', '1 + g % 3', `CASE WHEN g % 4 = 0 THEN 'Pasif' ELSE 'Aktif' END`)}
         FROM generate_series(1, 6000) g`,
      );

      // Transactions that move members between branches and statuses and add new ones, each
      // holding its rows a moment before it commits: three before the migration starts, then on
      // until three more have committed after it.
      const progress: { committed: number; migratedAt: number | null } = {
        committed: 0,
        migratedAt: null,
      };
      const writing = (async () => {
        for (
          let i = 0;
          progress.migratedAt === null || progress.committed < progress.migratedAt + 3;
          i++
        ) {
          await inTransaction(
            writer,
            `UPDATE members SET branch_id = 1 + branch_id % 3,
                    status = CASE WHEN status = 'Aktif' THEN 'Pasif' ELSE 'Aktif' END
             WHERE id % 40 = ${i % 40};
             SELECT pg_sleep(0.05);
             ${MEMBER} ${memberValues(String(10_000 + i), '1', `'Aktif'`)};
             DELETE FROM members WHERE id = ${1 + ((i * 37) % 6000)}`,
          );
          progress.committed += 1;
        }
      })();
      while (progress.committed < 3) await new Promise((resolve) => setTimeout(resolve, 10));
      await inTransaction(client, migrations.find((m) => m.name === KEPT_TOTALS)!.sql);
      progress.migratedAt = progress.committed;
      await writing;

      const groups = await groupsOf(client);
      expect(groups.length).toBe(6);
      for (const group of groups) {
        expect(group.totals, `${group.branch_key} ${group.status}`).toBe(group.rows);
        expect(group.blocks, `${group.branch_key} ${group.status}`).toBe(group.rows);
      }
    } finally {
      await writer.end();
      await client.end();
    }
  }, 60_000);
});
