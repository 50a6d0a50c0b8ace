// The four statistics against an independent computation: SQL over the legacy tables on a
// dashboard connection (Istanbul session time), seeded around today's Istanbul midnight and the
// start of the Istanbul month. "Today" is the real current day, so each comparison reads the
// database's Istanbul day before and after; if the day turned in between it is tried once more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { LegacyStatistics, type Calendar } from '../support/legacy-statistics.js';
import { seedStatistics, type SeededBranches } from '../support/statistics-seed.js';
import { syncOnce } from '../support/sync-once.js';

const STATISTICS_SCOPES = ['branches:read', 'financial:read', 'dashboard:read'] as const;

let env: TestEnvironment;
let gateway: RunningGateway;
let dashboard: LegacyDashboard;
let legacy: LegacyStatistics;
let branches: SeededBranches;
const tokens: Record<'all' | 'boundA' | 'boundC', string> = { all: '', boundA: '', boundC: '' };

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  legacy = new LegacyStatistics(dashboard);
  branches = await seedStatistics(dashboard, await legacy.calendar());
  await syncOnce(env);
  gateway = await startGateway(env, { RATE_LIMIT_PER_MINUTE: '10000' });
  const token = (branchId: number | null) =>
    createTestClient(gateway.db, { scopes: [...STATISTICS_SCOPES], branchId }).then((client) =>
      issueToken(gateway, client),
    );
  tokens.all = await token(null);
  tokens.boundA = await token(branches.a);
  tokens.boundC = await token(branches.c);
});

afterAll(async () => {
  await dashboard?.close();
  await gateway?.close();
  await env?.destroy();
});

type Expectation = (calendar: Calendar) => Promise<Record<string, number>>;

/**
 * The API's answer equals the SQL computation made in the same Istanbul day: every key, nothing
 * more (a strict object), numbers exactly the DECIMAL values.
 */
async function expectAgreement(
  path: (calendar: Calendar) => string,
  token: string,
  expected: Expectation,
) {
  for (let attempt = 1; ; attempt++) {
    const before = await legacy.calendar();
    const want = await expected(before);
    const { status, body } = await getJson(`${gateway.url}/api/v1${path(before)}`, bearer(token));
    const after = await legacy.calendar();
    if (before.today !== after.today && attempt === 1) continue;
    expect(status).toBe(200);
    expect(body).toStrictEqual({ success: true, data: want });
    return want;
  }
}

/** A path with its query string, leaving out the parameters that are null. */
function withQuery(path: string, params: Record<string, string | number | null>) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== null) search.set(name, String(value));
  }
  return search.size === 0 ? path : `${path}?${search.toString()}`;
}

/** DashboardStats, DashboardDaily and the month's FinancialSummary for one branch filter. */
async function expectDashboardAgreement(token: string, filter: number | null, over: number | null) {
  const query = { branch_id: filter };
  await expectAgreement(
    () => withQuery('/dashboard/stats', query),
    token,
    (c) => legacy.dashboardStats(over, c),
  );
  await expectAgreement(
    () => withQuery('/dashboard/daily', query),
    token,
    (c) => legacy.dashboardDaily(over, c),
  );
  await expectAgreement(
    () => withQuery('/financial/summary', query),
    token,
    (c) => legacy.financialSummary(over, c.monthStart, c.monthEnd),
  );
}

describe('when the client sees every branch', () => {
  it('then each branch stats equal the legacy computation, the passive branch included', async () => {
    for (const branch of [branches.a, branches.b, branches.c]) {
      await expectAgreement(
        () => `/branches/${branch}/stats`,
        tokens.all,
        (c) => legacy.branchStats(branch, c),
      );
    }
  });

  it('then dashboard stats, daily and the month summary agree, overall and per branch', async () => {
    for (const branch of [null, branches.a, branches.b, branches.c]) {
      await expectDashboardAgreement(tokens.all, branch, branch);
    }
  });

  const ranges: [string, (c: Calendar) => [string | null, string | null]][] = [
    ['today alone', (c) => [c.today, c.today]],
    ['yesterday alone', (c) => [c.yesterday, c.yesterday]],
    ['tomorrow alone', (c) => [c.tomorrow, c.tomorrow]],
    ['the first day of the month alone', (c) => [c.monthStart, c.monthStart]],
    ['the last day of the previous month alone', (c) => [c.previousMonthEnd, c.previousMonthEnd]],
    ['from the previous month end to today', (c) => [c.previousMonthEnd, c.today]],
    ['only a start date (today)', (c) => [c.today, null]],
    ['only an end date (yesterday)', (c) => [null, c.yesterday]],
  ];
  it.each(ranges)('then the financial summary of %s agrees', async (_, range) => {
    for (const branch of [null, branches.a, branches.b]) {
      const path = (c: Calendar) => {
        const [start_date, end_date] = range(c);
        return withQuery('/financial/summary', { branch_id: branch, start_date, end_date });
      };
      const want = await expectAgreement(path, tokens.all, (c) =>
        legacy.financialSummary(branch, ...range(c)),
      );
      // Every range holds seeded money, so agreeing on zeros proves nothing is left out.
      if (branch === null) expect(want.total_transactions).toBeGreaterThan(0);
    }
  });

  it('then money is exact decimal arithmetic: 0.10 + 0.20 - 0.30 nets exactly 0', async () => {
    const want = await expectAgreement(
      (c) => `/financial/summary?branch_id=${branches.c}&start_date=${c.today}&end_date=${c.today}`,
      tokens.all,
      (c) => legacy.financialSummary(branches.c, c.today, c.today),
    );
    expect(want).toStrictEqual({
      total_transactions: 3,
      total_income: 0.3,
      total_expense: 0.3,
      net_amount: 0,
    });
  });

  it('then the stats of a branch that does not exist answer 404 NOT_FOUND', async () => {
    const missing = branches.c + 1000;
    const { status, body } = await getJson(
      `${gateway.url}/api/v1/branches/${missing}/stats`,
      bearer(tokens.all),
    );
    expect(status).toBe(404);
    expect(body).toMatchObject({ success: false, error: 'NOT_FOUND' });
  });
});

describe('when the client is bound to one branch', () => {
  it('then every statistic covers its branch alone, with or without naming it', async () => {
    const a = branches.a;
    await expectDashboardAgreement(tokens.boundA, null, a);
    await expectDashboardAgreement(tokens.boundA, a, a);
    await expectAgreement(
      (c) => withQuery('/financial/summary', { start_date: c.yesterday, end_date: c.today }),
      tokens.boundA,
      (c) => legacy.financialSummary(a, c.yesterday, c.today),
    );
    await expectAgreement(
      () => `/branches/${a}/stats`,
      tokens.boundA,
      (c) => legacy.branchStats(a, c),
    );
  });

  it('then active_branches is 1 for an active branch and 0 for a passive one', async () => {
    const active = await expectAgreement(
      () => '/dashboard/stats',
      tokens.boundA,
      (c) => legacy.dashboardStats(branches.a, c),
    );
    const passive = await expectAgreement(
      () => '/dashboard/stats',
      tokens.boundC,
      (c) => legacy.dashboardStats(branches.c, c),
    );
    expect([active.active_branches, passive.active_branches]).toEqual([1, 0]);
  });

  it.each(['/dashboard/stats', '/dashboard/daily', '/financial/summary'])(
    'then naming another branch on %s answers 403 INSUFFICIENT_SCOPE',
    async (path) => {
      const { status, body } = await getJson(
        `${gateway.url}/api/v1${path}?branch_id=${branches.b}`,
        bearer(tokens.boundA),
      );
      expect(status).toBe(403);
      expect(body).toMatchObject({ success: false, error: 'INSUFFICIENT_SCOPE' });
    },
  );

  it("then another branch's stats answer 404 NOT_FOUND", async () => {
    const { status, body } = await getJson(
      `${gateway.url}/api/v1/branches/${branches.b}/stats`,
      bearer(tokens.boundA),
    );
    expect(status).toBe(404);
    expect(body).toMatchObject({ success: false, error: 'NOT_FOUND' });
  });
});
