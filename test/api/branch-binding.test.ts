// The branch rule on every endpoint of the table in support/protected-endpoints.ts: each line's
// seed puts one row into the bound client's branch and one into another branch; the bound client
// never receives the other branch's row, while an unbound client does (so the check can fail).
// Statistics hold no rows: a bound client's must equal an unbound client's for its branch alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../gateway/src/endpoints.js';
import { SCOPES } from '#api/scopes.js';
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
import {
  describeEndpoint,
  pathWith,
  PROTECTED_ENDPOINTS,
  type BranchData,
  type ProtectedEndpoint,
} from '../support/protected-endpoints.js';
import { NO_RATE_LIMIT } from '../support/read-fixture.js';
import { syncOnce } from '../support/sync-once.js';

type BranchEndpoint = ProtectedEndpoint & { branchData: BranchData };
const BRANCH_ENDPOINTS = PROTECTED_ENDPOINTS.filter(
  (e): e is BranchEndpoint => e.method === 'GET' && e.branchData !== null,
);

let env: TestEnvironment;
let gateway: RunningGateway;
let own: number;
let foreign: number;
let boundToken: string;
let unboundToken: string;
const seeded = new Map<ProtectedEndpoint, { own: number; foreign: number; global?: number }>();
/** A member of the bound branch holding a package and a payment booked in the other branch. */
let travelling: {
  member: number;
  ownPackage: number;
  foreignPackage: number;
  foreignPayment: number;
};

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  try {
    own = await dashboard.insertBranch();
    foreign = await dashboard.insertBranch();
    for (const endpoint of BRANCH_ENDPOINTS) {
      const { seed, seedGlobal } = endpoint.branchData;
      seeded.set(endpoint, {
        own: await seed(dashboard, own),
        foreign: await seed(dashboard, foreign),
        ...(seedGlobal ? { global: await seedGlobal(dashboard) } : {}),
      });
    }
    travelling = await seedTravellingMember(dashboard);
  } finally {
    await dashboard.close();
  }
  await syncOnce(env);
  gateway = await startGateway(env, NO_RATE_LIMIT);
  boundToken = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: [...SCOPES], branchId: own }),
  );
  unboundToken = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: [...SCOPES] }),
  );
});

async function seedTravellingMember(d: LegacyDashboard) {
  const member = await d.insertMember({ branch_id: own });
  const package_id = await d.insertPackage();
  return {
    member,
    ownPackage: await d.insertMemberPackage({ member_id: member, package_id, branch_id: own }),
    foreignPackage: await d.insertMemberPackage({
      member_id: member,
      package_id,
      branch_id: foreign,
    }),
    foreignPayment: await d.insertTransaction({ member_id: member, branch_id: foreign }),
  };
}

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

/** A list is asked for its largest page, so no row hides behind pagination. */
function get(endpoint: ProtectedEndpoint, id: number, token: string, query = '') {
  const params = new URLSearchParams(query);
  if (endpoint.list) params.set('limit', '200');
  const search = params.size > 0 ? `?${params.toString()}` : '';
  return getJson(`${gateway.url}${pathWith(endpoint, id)}${search}`, bearer(token));
}

const rowsOf = (body: { data: unknown }): any[] =>
  Array.isArray(body.data) ? body.data : [body.data];

/** The branch of every row in an answer: a list's items, or the single object. */
const branchesIn = (endpoint: BranchEndpoint, body: { data: unknown }) =>
  rowsOf(body).map((row) => endpoint.branchData.branchOf!(row));

const idsIn = (body: { data: unknown }) => rowsOf(body).map((row: { id: number }) => row.id);

const answersRows = (e: BranchEndpoint) => e.branchData.branchOf !== undefined;
const namesOneObject = (e: BranchEndpoint) => e.path.includes(':id');
const listsGlobalRows = (e: BranchEndpoint) => e.branchData.seedGlobal !== undefined;
const holdsStatistics = (e: BranchEndpoint) => !answersRows(e);
const takesBranchFilter = (e: BranchEndpoint) => e.branchData.branchFilter === true;
const seededOf = (e: BranchEndpoint) => seeded.get(e)!;

/**
 * The lines a rule applies to, as `[name, line]` cases: each rule's table is filtered before its
 * cases are made, so a line the rule does not fit makes no case rather than a skipped one.
 */
const casesOf = (applies: (e: BranchEndpoint) => boolean) =>
  BRANCH_ENDPOINTS.filter(applies).map((e) => [describeEndpoint(e), e] as const);

describe.each(casesOf(answersRows))('%s', (_name, endpoint) => {
  // A list of the branch's own rows (not a sub-resource of one object) must name the seeded row.
  const ownRows = endpoint.list && !namesOneObject(endpoint);

  it('when a bound client asks, then every row it receives is of its own branch', async () => {
    const { status, body } = await get(endpoint, seededOf(endpoint).own, boundToken);
    expect(status).toBe(200);
    const branches = branchesIn(endpoint, body as { data: unknown });
    expect(branches).toContain(own);
    expect(branches.filter((b) => b !== own && b !== null)).toEqual([]);
    if (ownRows) {
      expect(idsIn(body as { data: unknown })).toContain(seededOf(endpoint).own);
      expect(idsIn(body as { data: unknown })).not.toContain(seededOf(endpoint).foreign);
    }
  });

  it('when an unbound client asks, then it receives the other branch too', async () => {
    const { status, body } = await get(endpoint, seededOf(endpoint).foreign, unboundToken);
    expect(status).toBe(200);
    expect(branchesIn(endpoint, body as { data: unknown })).toContain(foreign);
    if (ownRows) expect(idsIn(body as { data: unknown })).toContain(seededOf(endpoint).foreign);
  });
});

describe.each(casesOf(listsGlobalRows))('%s', (_name, endpoint) => {
  it('when a bound client asks, then rows addressed to every branch are listed beside its own', async () => {
    const { body } = await get(endpoint, seededOf(endpoint).own, boundToken);
    const global = rowsOf(body as { data: unknown }).find(
      (r) => r.id === seededOf(endpoint).global,
    );
    expect(global).toBeDefined();
    expect(endpoint.branchData.branchOf!(global)).toBeNull();
  });
});

describe.each(casesOf(holdsStatistics))('%s', (_name, endpoint) => {
  it('when a bound client asks, then the statistics are those of its branch alone', async () => {
    const filter = endpoint.branchData.branchFilter ? `branch_id=${own}` : '';
    const bound = await get(endpoint, seededOf(endpoint).own, boundToken);
    const ownOnly = await get(endpoint, seededOf(endpoint).own, unboundToken, filter);
    expect(bound.status).toBe(200);
    expect(bound.body.data).toEqual(ownOnly.body.data);
    expect(Object.values(bound.body.data as object).some((v) => v !== 0)).toBe(true);
    // The seeds gave both branches activity, so all branches together differ.
    if (!namesOneObject(endpoint)) {
      const everything = await get(endpoint, seededOf(endpoint).own, unboundToken);
      expect(everything.body.data).not.toEqual(bound.body.data);
    }
  });
});

describe.each(casesOf(namesOneObject))('%s', (_name, endpoint) => {
  it("when a bound client asks for another branch's object, then it answers 404 NOT_FOUND", async () => {
    const { status, body } = await get(endpoint, seededOf(endpoint).foreign, boundToken);
    expect(status).toBe(404);
    expect(body).toMatchObject({ success: false, error: 'NOT_FOUND' });
  });
});

describe.each(casesOf(takesBranchFilter))('%s', (_name, endpoint) => {
  it('when a bound client names another branch_id, then it answers 403 INSUFFICIENT_SCOPE, and its own is fine', async () => {
    const id = seededOf(endpoint).own;
    const other = await get(endpoint, id, boundToken, `branch_id=${foreign}`);
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ success: false, error: 'INSUFFICIENT_SCOPE' });
    const mine = await get(endpoint, id, boundToken, `branch_id=${own}`);
    expect(mine.status).toBe(200);
    if (answersRows(endpoint)) {
      expect(new Set(branchesIn(endpoint, mine.body as { data: unknown }))).toEqual(new Set([own]));
    }
  });
});

describe("a bound branch's member with rows booked in another branch", () => {
  const subResource = (suffix: string, token: string) =>
    getJson(
      `${gateway.url}/api/v1/members/${travelling.member}/${suffix}?limit=200`,
      bearer(token),
    );

  it('when a bound client lists its packages, then the one booked in the other branch is left out', async () => {
    const bound = await subResource('packages', boundToken);
    expect(bound.status).toBe(200);
    expect(idsIn(bound.body as { data: unknown })).toEqual([travelling.ownPackage]);
    const unbound = await subResource('packages', unboundToken);
    expect(idsIn(unbound.body as { data: unknown })).toContain(travelling.foreignPackage);
  });

  it("when a bound client lists its financial history, then the other branch's payment is left out", async () => {
    const bound = await subResource('financial', boundToken);
    expect(bound.status).toBe(200);
    expect(idsIn(bound.body as { data: unknown })).toEqual([]);
    const unbound = await subResource('financial', unboundToken);
    expect(idsIn(unbound.body as { data: unknown })).toEqual([travelling.foreignPayment]);
  });
});

describe('the branch-binding table', () => {
  it('when the table is read, then every branch-owned read operation is covered, lists and sub-resources included', () => {
    const covered = BRANCH_ENDPOINTS.map((e) => e.operationId);
    expect(covered).toEqual(
      expect.arrayContaining([
        'listMembers',
        'getMember',
        'getMemberPackages',
        'getMemberFinancial',
        'listTransactions',
        'listInstallments',
        'listStaff',
        'getStaff',
        'listNotifications',
        'listPrivateLessons',
        'listPresence',
        'getBranchStats',
        'getDashboardStats',
        'getDashboardDaily',
        'getFinancialSummary',
      ]),
    );
    const unguarded = PROTECTED_ENDPOINTS.filter((e) => e.method === 'GET' && !e.branchData);
    // Packages and the market belong to no branch; webhook subscriptions and usage belong to
    // their client; the event types follow its scopes.
    expect(unguarded.map((e) => e.operationId).sort()).toEqual(
      [
        'getPackage',
        'listMarketCategories',
        'listMarketProducts',
        'listPackages',
        'getWebhook',
        'listWebhookDeliveries',
        'listWebhookEventTypes',
        'listWebhooks',
        'getUsage',
      ].sort(),
    );
  });

  it('when the rules are applied, then each has lines to run on', () => {
    const rules = [
      answersRows,
      listsGlobalRows,
      holdsStatistics,
      namesOneObject,
      takesBranchFilter,
    ];
    expect(rules.filter((applies) => casesOf(applies).length === 0).map((r) => r.name)).toEqual([]);
  });

  it('when an operation takes a branch_id filter, then its line runs the 403 check', () => {
    const filtering = ENDPOINTS.filter((e) => e.query && 'branch_id' in e.query.shape);
    const checked = BRANCH_ENDPOINTS.filter(takesBranchFilter);
    expect(checked.map((e) => e.operationId).sort()).toEqual(
      filtering.map((e) => e.operationId).sort(),
    );
  });
});
