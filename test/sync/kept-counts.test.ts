// Kept counts (read-model/kept-counts.ts): the exact totals of the lists, kept by triggers in the
// transaction that changes the rows. After a first load they equal a count of the rows per branch
// and status, the lists' totals equal a count under every filter they answer, and folding the
// deltas changes no sum. (Random legacy writes: sync-randomized.test.ts, whose verify compares
// every kept count too.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModelPool } from '#common/databases.js';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import { foldKeptCounts, KEPT_COUNTS, keptDifferences } from '#read-model/kept-counts.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { syncOnce } from '../support/sync-once.js';
import { verifyEnvironment } from '../support/verify.js';

let env: TestEnvironment;
let gateway: RunningGateway;
let token: string;
let boundToken: string;
let branch: number;

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  await generateLegacyData(dashboard.conn, { scale: 1, seed: 21 });
  // 10,000 more members over the generated branches, one in five passive, one in seven soft
  // deleted (gaps in the ids): deep pages start several blocks of 4,096 ids in.
  const digits =
    '(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)';
  await dashboard.conn.query(
    `INSERT INTO members (full_name, phone, member_no, qr_code, branch_id, status, is_deleted)
     SELECT 'Derin', CONCAT('05', LPAD(n, 9, '0')), CONCAT('DP', n), CONCAT('DQ', n),
            (SELECT MIN(id) FROM branches) + n % 3, IF(n % 5 = 0, 'Pasif', 'Aktif'), n % 7 = 0
     FROM (SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d AS n
           FROM ${digits} a, ${digits} b, ${digits} c, ${digits} e) seq`,
  );
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

/** Pages on both sides of the first block boundary (4,096), deep ones, and one past the end. */
const PAGES = [
  [82, 50],
  [83, 50],
  [41, 100],
  [21, 200],
  [22, 200],
  [43, 200],
  [400, 25],
  [62, 200],
] as const;

describe('kept counts', () => {
  it('when the first load is done, then every kept count and day sum equals the rows', async () => {
    const pool = readModelPool(gateway.db);
    for (const table of Object.keys(KEPT_COUNTS) as (keyof typeof KEPT_COUNTS)[]) {
      expect(await keptDifferences(pool, table), table).toEqual([]);
    }
    expect((await verifyEnvironment(env)).reports).toEqual([]);
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

  it('when deep pages are asked, then each holds exactly the rows OFFSET gives and the total a count gives, under every kept filter', async () => {
    const pool = readModelPool(gateway.db);
    const total = await gateway.db.member.count();
    expect(total).toBeGreaterThan(2 * 4096);
    const filters: [string, string, unknown[], string?][] = [
      ['', 'TRUE', []],
      [`&branch_id=${branch}`, 'branch_id = $1', [branch]],
      ['&status=passive', "status = 'Pasif'", []],
      [`&status=active&branch_id=${branch}`, "status = 'Aktif' AND branch_id = $1", [branch]],
      ['&status=active', "status = 'Aktif' AND branch_id = $1", [branch], boundToken],
    ];
    for (const [query, where, params, as] of filters) {
      const { rows: counted } = await pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM members WHERE ${where}`,
        params,
      );
      for (const [page, limit] of PAGES) {
        const answer = await getJson(
          `${gateway.url}/api/v1/members?limit=${limit}&page=${page}${query}`,
          bearer(as ?? token),
        );
        expect(answer.status).toBe(200);
        const { rows } = await pool.query<{ id: number }>(
          `SELECT id FROM members WHERE ${where} ORDER BY id LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
          params,
        );
        const ids = (answer.body.data as { id: number }[]).map((m) => m.id);
        expect(ids, `${query} page ${page} of ${limit}`).toEqual(rows.map((r) => r.id));
        // The page and its total are one statement; a page past the end counts on its own.
        expect(answer.body.pagination.total, `${query} page ${page}`).toBe(Number(counted[0]!.n));
      }
    }
  });

  it('when a page of a counted filter is asked, then its total is the count, past the end too', async () => {
    const matching = await gateway.db.member.count({ where: { search_text: { contains: 'a' } } });
    expect(matching).toBeGreaterThan(50);
    for (const page of [1, 2, Math.ceil(matching / 50), Math.ceil(matching / 50) + 1]) {
      const answer = await getJson(
        `${gateway.url}/api/v1/members?search=a&limit=50&page=${page}`,
        bearer(token),
      );
      expect(answer.status).toBe(200);
      expect(answer.body.pagination.total, `page ${page}`).toBe(matching);
    }
  });

  it('when new rows are synced and the deltas folded, then no total changes and fewer rows remain', async () => {
    const dashboard = await LegacyDashboard.connect(env.legacyUrl);
    await dashboard.insertMember({ branch_id: branch });
    await dashboard.close();
    await syncOnce(env);
    const pool = readModelPool(gateway.db);
    const before = await totalOf('/members?limit=1&status=active');
    const keptRows = async () => {
      const { rows } = await pool.query<{ n: string }>(
        'SELECT (SELECT count(*) FROM kept_counts) + (SELECT count(*) FROM kept_totals) + (SELECT count(*) FROM kept_day_sums) AS n',
      );
      return Number(rows[0]!.n);
    };
    const rowsBefore = await keptRows();
    const folded = await foldKeptCounts(pool);
    expect(folded).toBeGreaterThan(0);
    expect(await keptRows()).toBe(rowsBefore - folded);
    expect(await totalOf('/members?limit=1&status=active')).toBe(before);
    expect((await verifyEnvironment(env)).reports).toEqual([]);
  });

  it('when one member is added after a fold, then the next fold rewrites only the groups it touched', async () => {
    const pool = readModelPool(gateway.db);
    await foldKeptCounts(pool);
    const ids = async () => {
      const { rows } = await pool.query<{ id: string }>(
        `SELECT 'c' || id AS id FROM kept_counts UNION ALL SELECT 't' || id FROM kept_totals
         UNION ALL SELECT 'd' || id FROM kept_day_sums`,
      );
      return new Set(rows.map((row) => row.id));
    };
    const folded = await ids();
    // Nothing to fold: nothing rewritten (a fold of every row made dead rows in proportion to
    // the table at each run).
    expect(await foldKeptCounts(pool)).toBe(0);
    expect(await ids()).toEqual(folded);
    const dashboard = await LegacyDashboard.connect(env.legacyUrl);
    await dashboard.insertMember({ branch_id: branch });
    await dashboard.close();
    await syncOnce(env);
    expect(await foldKeptCounts(pool)).toBeGreaterThan(0);
    const after = await ids();
    const kept = [...folded].filter((id) => after.has(id)).length;
    // One member touches a few groups (its block, its status, its branch): all others stay.
    expect(folded.size - kept).toBeGreaterThan(0);
    expect(folded.size - kept).toBeLessThanOrEqual(6);
    expect((await verifyEnvironment(env)).reports).toEqual([]);
  });
});
