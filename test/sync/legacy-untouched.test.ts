// The worker reads the dashboard's database with a user holding only SELECT and leaves its
// schema exactly as it found it; the gateway's user can write members and nothing else
// (test/members/members-write.test.ts proves the schema unchanged after the write suite).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { legacySchemaSnapshot } from '../support/legacy-schema-snapshot.js';
import { eventually } from '../support/eventually.js';
import { startWorker } from '../support/worker.js';

let env: TestEnvironment;
let dashboard: LegacyDashboard;

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
});

afterAll(async () => {
  await dashboard?.close();
  await env?.destroy();
});

const schemaSnapshot = () => legacySchemaSnapshot(dashboard);

describe('the worker and the legacy database', () => {
  it('when the worker syncs with a SELECT-only user, then it succeeds and the legacy schema is unchanged', async () => {
    const before = await schemaSnapshot();
    const branchId = await dashboard.insertBranch();
    const memberId = await dashboard.insertMember({ branch_id: branchId });

    const worker = await startWorker(env, { legacyUrl: env.legacyReadOnlyUrl });
    try {
      await eventually(async () => {
        expect(
          await worker.readModel.member.findUnique({ where: { id: memberId } }),
        ).not.toBeNull();
      });
    } finally {
      await worker.close();
    }
    expect(await schemaSnapshot()).toBe(before);
  });

  it('when the read-only user tries to write, then MySQL refuses: it holds only SELECT', async () => {
    const readOnly = await LegacyDashboard.connect(env.legacyReadOnlyUrl);
    try {
      const grants = await readOnly.query<Record<string, string>>('SHOW GRANTS');
      const text = grants.flatMap((row) => Object.values(row)).join('\n');
      expect(text).toMatch(/GRANT SELECT ON/);
      expect(text).not.toMatch(/INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|ALL PRIVILEGES/);
      await expect(readOnly.insertBranch()).rejects.toThrow(/denied/i);
    } finally {
      await readOnly.close();
    }
  });

  it('when the gateway user tries anything beyond member writes, then MySQL refuses', async () => {
    const gateway = await LegacyDashboard.connect(env.legacyGatewayUrl);
    try {
      const denied = [
        'ALTER TABLE members ADD COLUMN api_note INT',
        'CREATE TABLE api_own (id INT)',
        'DROP TABLE member_counters',
        'DELETE FROM members',
        'DELETE FROM member_counters',
        "INSERT INTO branches (name, status) VALUES ('x', 'Aktif')",
        "UPDATE branches SET name = 'x'",
        'UPDATE financial_transactions SET amount = 0',
        'SELECT password_hash FROM staff',
        'CREATE TRIGGER t BEFORE INSERT ON members FOR EACH ROW SET @x = 1',
      ];
      for (const sql of denied) {
        await expect(gateway.query(sql), sql).rejects.toThrow(/denied/i);
      }
      // What it may do: read branches, and write the two tables a member create touches.
      const branchId = await dashboard.insertBranch();
      await gateway.query('SELECT status FROM branches WHERE id = ?', [branchId]);
      await gateway.query('INSERT INTO member_counters (branch_id, last_no) VALUES (?, 0)', [
        branchId,
      ]);
      await gateway.query('UPDATE member_counters SET last_no = 1 WHERE branch_id = ?', [branchId]);
    } finally {
      await gateway.close();
    }
  });
});
