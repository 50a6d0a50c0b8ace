// The worker reads the dashboard's database with a user holding only SELECT and leaves its
// schema exactly as it found it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from './support/environment.js';
import { LegacyDashboard } from './support/legacy-dashboard.js';
import { eventually, startWorker } from './support/worker.js';

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

/** Everything information_schema says about the database's structure. */
async function schemaSnapshot(): Promise<string> {
  const queries = {
    tables:
      'SELECT table_name, engine, table_collation FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY 1',
    columns:
      'SELECT table_name, column_name, ordinal_position, column_type, is_nullable, column_default, extra, collation_name FROM information_schema.columns WHERE table_schema = DATABASE() ORDER BY 1, 3',
    indexes:
      'SELECT table_name, index_name, seq_in_index, column_name, non_unique FROM information_schema.statistics WHERE table_schema = DATABASE() ORDER BY 1, 2, 3',
    constraints:
      'SELECT table_name, constraint_name, constraint_type FROM information_schema.table_constraints WHERE table_schema = DATABASE() ORDER BY 1, 2',
    triggers:
      'SELECT trigger_name FROM information_schema.triggers WHERE trigger_schema = DATABASE() ORDER BY 1',
    routines:
      'SELECT routine_name FROM information_schema.routines WHERE routine_schema = DATABASE() ORDER BY 1',
    views:
      'SELECT table_name FROM information_schema.views WHERE table_schema = DATABASE() ORDER BY 1',
  };
  const snapshot: Record<string, unknown> = {};
  for (const [name, sql] of Object.entries(queries)) snapshot[name] = await dashboard.query(sql);
  return JSON.stringify(snapshot, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
}

describe('the worker and the legacy database', () => {
  it('when the worker syncs with a SELECT-only user, then it succeeds and the legacy schema is unchanged', async () => {
    const before = await schemaSnapshot();
    const branchId = await dashboard.insertBranch();
    const memberId = await dashboard.insertMember({ branch_id: branchId });

    const worker = await startWorker(env, { legacyUrl: env.legacyReadOnlyUrl, intervalMs: 200 });
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
});
