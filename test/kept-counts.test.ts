// Kept counts (read-model/kept-counts.ts): the exact totals of the lists, kept by triggers in the
// transaction that changes the rows. After a first load they equal a count of the rows per branch
// and status, the lists' totals equal a count under every filter they answer, and folding the
// deltas changes no sum. (Random legacy writes: sync-randomized.test.ts, whose verify compares
// every kept count too.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModelPool } from '../common/databases.js';
import { generateLegacyData } from '../scripts/legacy/generate-data.js';
import { foldKeptCounts, KEPT_COUNTS, keptDifferences } from '../read-model/kept-counts.js';
import { createTestEnvironment, type TestEnvironment } from './support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  startGateway,
  type RunningGateway,
} from './support/gateway.js';
import { LegacyDashboard } from './support/legacy-dashboard.js';
import { syncOnce } from './support/sync-once.js';
import { verifyEnvironment } from './support/verify.js';

let env: TestEnvironment;
let gateway: RunningGateway;
let token: string;
let boundToken: string;
let branch: number;

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  await generateLegacyData(dashboard.conn, { scale: 1, seed: 21 });
  await dashboard.close();
  await syncOnce(env);
  gateway = await startGateway(env, { RATE_LIMIT_PER_MINUTE: '100000' });
  const scopes = ['members:list', 'financial:read'] as const;
  token = await issueToken(gateway, await createTestClient(gateway.db, { scopes: [...scopes] }));
  const [first] = await gateway.db.branch.findMany({ orderBy: { id: 'asc' }, take: 1 });
  branch = first!.id;
  boundToken = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: [...scopes], branchId: branch }),
  );
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

const totalOf = async (path: string, as = token) => {
  const answer = await getJson(`${gateway.url}/api/v1${path}`, bearer(as));
  expect(answer.status).toBe(200);
  return answer.body.pagination.total as number;
};

describe('kept counts', () => {
  it('when the first load is done, then every kept count and day sum equals the rows', async () => {
    const pool = readModelPool(gateway.db);
    for (const table of Object.keys(KEPT_COUNTS) as (keyof typeof KEPT_COUNTS)[]) {
      expect(await keptDifferences(pool, table), table).toEqual([]);
    }
    expect((await verifyEnvironment(env)).total).toBe(0);
  });

  it('when lists are asked with the filters kept counts answer, then the totals equal a count', async () => {
    const members = gateway.db.member;
    expect(await totalOf('/members?limit=1')).toBe(await members.count());
    expect(await totalOf(`/members?limit=1&branch_id=${branch}`)).toBe(
      await members.count({ where: { branch_id: branch } }),
    );
    expect(await totalOf('/members?limit=1&status=passive')).toBe(
      await members.count({ where: { status: 'Pasif' } }),
    );
    expect(await totalOf(`/members?limit=1&status=active&branch_id=${branch}`)).toBe(
      await members.count({ where: { status: 'Aktif', branch_id: branch } }),
    );
    expect(await totalOf('/members?limit=1&status=active', boundToken)).toBe(
      await members.count({ where: { status: 'Aktif', branch_id: branch } }),
    );
    const transactions = gateway.db.financialTransaction;
    expect(await totalOf('/financial/transactions?limit=1')).toBe(await transactions.count());
    expect(await totalOf(`/financial/transactions?limit=1&branch_id=${branch}`)).toBe(
      await transactions.count({ where: { branch_id: branch } }),
    );
    expect(await totalOf('/financial/transactions?limit=1', boundToken)).toBe(
      await transactions.count({ where: { branch_id: branch } }),
    );
    // A filter the kept counts do not answer is counted.
    expect(await totalOf('/financial/transactions?limit=1&transaction_type=Gelir')).toBe(
      await transactions.count({ where: { transaction_type: 'Gelir' } }),
    );
  });

  it('when new rows are synced and the deltas folded, then no total changes and fewer rows remain', async () => {
    const dashboard = await LegacyDashboard.connect(env.legacyUrl);
    await dashboard.insertMember({ branch_id: branch });
    await dashboard.close();
    await syncOnce(env);
    const pool = readModelPool(gateway.db);
    const before = await totalOf('/members?limit=1&status=active');
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM kept_counts');
    const folded = await foldKeptCounts(pool);
    expect(folded).toBeGreaterThan(0);
    const after = await pool.query<{ n: string }>('SELECT count(*) AS n FROM kept_counts');
    expect(Number(after.rows[0]!.n)).toBe(Number(rows[0]!.n) - folded);
    expect(await totalOf('/members?limit=1&status=active')).toBe(before);
    expect((await verifyEnvironment(env)).total).toBe(0);
  });
});
