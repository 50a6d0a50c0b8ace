// The kept statistics across an Istanbul midnight that is also a month end (28 February to
// 1 March 2026): rows dated a second before and at midnight, the gateway's clock moved to either
// side (the test moves Date; the code reads the clock as always). Each answer is what the
// dashboard's definitions give for that Istanbul day and month.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
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

let env: TestEnvironment;
let gateway: RunningGateway;
let token: string;
let boundToken: string;
let branch: number;

/** Istanbul wall-clock times, as the dashboard stores them. */
const BEFORE = '2026-02-28 23:59:59';
const AT = '2026-03-01 00:00:00';

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  branch = await dashboard.insertBranch();
  const other = await dashboard.insertBranch();
  const income = (branch_id: number, amount: string, at: string) =>
    dashboard.insertTransaction({ branch_id, amount, transaction_date: at });
  await income(branch, '3.00', '2026-01-31 23:59:59');
  await income(branch, '7.00', BEFORE);
  await income(branch, '11.00', AT);
  await income(other, '1000.00', AT);
  await dashboard.insertTransaction({
    branch_id: branch,
    transaction_type: 'Gider',
    transaction_code: 'GIDER',
    amount: '2.50',
    transaction_date: AT,
  });
  const early = await dashboard.insertMember({ branch_id: branch, registered_at: BEFORE });
  await dashboard.insertMember({ branch_id: branch, registered_at: AT });
  const pack = await dashboard.insertPackage();
  for (const end of ['2026-02-28', '2026-03-01']) {
    await dashboard.insertMemberPackage({
      member_id: early,
      package_id: pack,
      branch_id: branch,
      start_date: '2026-02-01',
      end_date: end,
    });
  }
  await dashboard.close();
  await syncOnce(env);
  gateway = await startGateway(env, { RATE_LIMIT_PER_MINUTE: '10000' });
  const scopes = ['dashboard:read', 'branches:read', 'financial:read'] as const;
  token = await issueToken(gateway, await createTestClient(gateway.db, { scopes: [...scopes] }));
  boundToken = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: [...scopes], branchId: branch }),
  );
}, 60_000);

afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

/** The gateway's clock at an Istanbul wall-clock time (UTC+03:00). */
function clockAt(istanbul: string) {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(`${istanbul.replace(' ', 'T')}+03:00`));
}

async function data(path: string, as = token) {
  const answer = await getJson(`${gateway.url}/api/v1${path}`, bearer(as));
  expect(answer.status).toBe(200);
  return answer.body.data as Record<string, number>;
}

describe('statistics across a midnight that ends a month', () => {
  it('when the clock is a second before midnight, then today is 28 February and the month February', async () => {
    clockAt(BEFORE);
    for (const as of [token, boundToken]) {
      expect(await data(`/dashboard/stats?branch_id=${branch}`, as)).toMatchObject({
        total_members: 2,
        monthly_revenue: 7,
      });
      expect(await data(`/dashboard/daily?branch_id=${branch}`, as)).toEqual({
        new_members_today: 1,
        today_revenue: 7,
        today_transactions: 1,
      });
      expect(await data(`/branches/${branch}/stats`, as)).toMatchObject({
        active_packages: 2,
        monthly_revenue: 7,
      });
      expect(await data(`/financial/summary?branch_id=${branch}`, as)).toEqual({
        total_transactions: 1,
        total_income: 7,
        total_expense: 0,
        net_amount: 7,
      });
    }
  });

  it('when the clock is at midnight, then today is 1 March and the month March', async () => {
    clockAt(AT);
    for (const as of [token, boundToken]) {
      expect(await data(`/dashboard/stats?branch_id=${branch}`, as)).toMatchObject({
        total_members: 2,
        monthly_revenue: 11,
      });
      expect(await data(`/dashboard/daily?branch_id=${branch}`, as)).toEqual({
        new_members_today: 1,
        today_revenue: 11,
        today_transactions: 2,
      });
      expect(await data(`/branches/${branch}/stats`, as)).toMatchObject({
        active_packages: 1,
        monthly_revenue: 11,
      });
      expect(await data(`/financial/summary?branch_id=${branch}`, as)).toEqual({
        total_transactions: 2,
        total_income: 11,
        total_expense: 2.5,
        net_amount: 8.5,
      });
    }
    // Over every branch, the other branch's income of that day counts too.
    expect(await data('/dashboard/daily')).toMatchObject({ today_revenue: 1011 });
  });
});
