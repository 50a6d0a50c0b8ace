// Every protected endpoint of the gateway, derived from the endpoint declarations
// (gateway/src/endpoints.ts): method, route path (`:id` stands for the id a line's seed returns),
// the scope it declares, and, per operation, how its branch data is seeded in the legacy database
// and recognised in an answer. test/api/protected-endpoints.test.ts (401/403) and
// test/api/branch-binding.test.ts (branch rule) walk this table; a declared operation without a
// BRANCH_DATA line fails the first, so a new endpoint's branch behaviour is decided in a test.
import type { Express } from 'express';
import { ENDPOINTS } from '../../gateway/src/endpoints.js';
import type { Scope } from '#api/scopes.js';
import { declaredScopeOf } from '../../gateway/src/http/authenticate.js';
import { expressPath } from '../../gateway/src/http/endpoint.js';
import type { LegacyDashboard } from './legacy-dashboard.js';

export interface BranchData {
  /** Inserts one row the endpoint answers into `branchId`; returns the id that fills `:id`. */
  seed: (dashboard: LegacyDashboard, branchId: number) => Promise<number>;
  /**
   * The branch of one answered row (an item of a list's `data`, or a single object's `data`);
   * null for a row addressed to every branch. Absent for statistics, whose answer holds no rows:
   * a bound client's statistics must then equal those of its branch alone.
   */
  branchOf?: (row: any) => number | null;
  /** Inserts a row addressed to every branch, which a bound client sees beside its own. */
  seedGlobal?: (dashboard: LegacyDashboard) => Promise<number>;
  /** The endpoint takes a `branch_id` query filter (a bound client's foreign branch is 403). */
  branchFilter?: boolean;
}

export interface ProtectedEndpoint {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** null: a valid token is enough (revoke). */
  scope: Scope | null;
  /** The answer is a page of rows (`data` is a list, with `pagination`). */
  list: boolean;
  /** null: the endpoint answers no branch-owned rows (revoke, packages, market). */
  branchData: BranchData | null;
}

type Seed = BranchData['seed'];
const byBranchId = (row: { branch_id: number | null }) => row.branch_id;

const memberSeed: Seed = (d, branchId) => d.insertMember({ branch_id: branchId });
/** A member of the branch with something of `extra` attached; `:id` is the member. */
const memberWith =
  (extra: (d: LegacyDashboard, memberId: number, branchId: number) => Promise<unknown>): Seed =>
  async (d, branchId) => {
    const memberId = await d.insertMember({ branch_id: branchId });
    await extra(d, memberId, branchId);
    return memberId;
  };
const memberPackage = async (d: LegacyDashboard, memberId: number, branchId: number) =>
  d.insertMemberPackage({
    member_id: memberId,
    package_id: await d.insertPackage(),
    branch_id: branchId,
    end_date: '2099-12-31',
  });
/** Something for every statistic to count: an active member with a package, an income today. */
const activitySeed: Seed = async (d, branchId) => {
  await memberWith(memberPackage)(d, branchId);
  await d.insertTransaction({ branch_id: branchId, amount: 250 });
  return branchId;
};

const member = { seed: memberSeed, branchOf: byBranchId };
/** A branch is its own row: `:id` is the branch itself. */
const branch = {
  seed: ((_d, branchId) => Promise.resolve(branchId)) as Seed,
  branchOf: (row: { id: number }) => row.id,
};
const statistics = { seed: activitySeed };

/** Per operation id: its branch data, or null when it answers no branch-owned rows. */
export const BRANCH_DATA: Record<string, BranchData | null> = {
  revokeToken: null,
  listMembers: { ...member, branchFilter: true },
  getMember: member,
  createMember: member,
  updateMember: member,
  getMemberPackages: { seed: memberWith(memberPackage), branchOf: byBranchId },
  getMemberFinancial: {
    seed: memberWith((d, member_id, branch_id) => d.insertTransaction({ member_id, branch_id })),
    branchOf: byBranchId,
  },
  listBranches: branch,
  getBranch: branch,
  getBranchStats: statistics,
  listPackages: null,
  getPackage: null,
  listTransactions: {
    seed: (d, branch_id) => d.insertTransaction({ branch_id }),
    branchOf: byBranchId,
    branchFilter: true,
  },
  getFinancialSummary: { ...statistics, branchFilter: true },
  listInstallments: {
    seed: async (d, branch_id) =>
      d.insertInstallmentPlan({ member_id: await d.insertMember({ branch_id }), branch_id }),
    branchOf: byBranchId,
    branchFilter: true,
  },
  getDashboardStats: { ...statistics, branchFilter: true },
  getDashboardDaily: { ...statistics, branchFilter: true },
  listMarketProducts: null,
  listMarketCategories: null,
  listStaff: {
    seed: async (d, branch_id) => d.insertStaff({ branch_id, role_id: await d.insertRole() }),
    branchOf: byBranchId,
    branchFilter: true,
  },
  getStaff: {
    seed: async (d, branch_id) => d.insertStaff({ branch_id, role_id: await d.insertRole() }),
    branchOf: byBranchId,
  },
  listNotifications: {
    seed: (d, branch_id) => d.insertNotification({ branch_id }),
    seedGlobal: (d) => d.insertNotification({ branch_id: null }),
    branchOf: byBranchId,
    branchFilter: true,
  },
  // A private lesson belongs to the branch of its member.
  listPrivateLessons: {
    seed: async (d, branch_id) =>
      d.insertPrivateLesson({
        member_id: await d.insertMember({ branch_id }),
        package_id: await d.insertPackage(),
      }),
    branchOf: byBranchId,
    branchFilter: true,
  },
  listPresence: {
    seed: async (d, branch_id) =>
      d.insertPresence({ member_id: await d.insertMember({ branch_id }), branch_id }),
    branchOf: byBranchId,
    branchFilter: true,
  },
  // Every change carries the branch of its row (null for rows of no branch).
  listChanges: member,
  // Subscriptions belong to their client, whatever its branch; their events follow the feed's
  // branch rule (test/webhooks/webhooks.test.ts).
  createWebhook: null,
  listWebhooks: null,
  getWebhook: null,
  deleteWebhook: null,
  rotateWebhookSecret: null,
  enableWebhook: null,
  replayWebhook: null,
  listWebhookDeliveries: null,
  listWebhookEventTypes: null,
  updateWebhook: null,
  testWebhook: null,
  // A client's usage is its own, whatever its branch (test/operations/usage.test.ts).
  getUsage: null,
  // Sandbox clients only: a bound one changes its own branch's rows (test/api/sandbox.test.ts).
  createSandboxEvent: null,
};

export const PROTECTED_ENDPOINTS: ProtectedEndpoint[] = ENDPOINTS.filter(
  (e) => e.access !== 'public',
).map((e) => ({
  operationId: e.operationId,
  method: e.method,
  path: `/api/v1${expressPath(e.path)}`,
  scope: e.access as Scope | null,
  list: 'pagination' in ((e.response as { shape?: object }).shape ?? {}),
  branchData: BRANCH_DATA[e.operationId] ?? null,
}));

/** The path with `:id` replaced. */
export function pathWith(endpoint: ProtectedEndpoint, id: number | string): string {
  return endpoint.path.replace(':id', String(id));
}

export const describeEndpoint = (e: ProtectedEndpoint) => `${e.method} ${e.path}`;

interface Layer {
  handle: { stack?: Layer[] };
  rawPath?: string;
  slash?: boolean;
  route?: { path: string; methods: Record<string, boolean>; stack: { handle: unknown }[] };
}

/** Every route of the app that declares a guard, read from Express's own router stack. */
export function guardedRoutes(app: Express): { method: string; path: string; scope: unknown }[] {
  const found: { method: string; path: string; scope: unknown }[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const guard = layer.route.stack.find((l) => declaredScopeOf(l.handle) !== undefined);
        if (!guard) continue;
        for (const method of Object.keys(layer.route.methods)) {
          found.push({
            method: method.toUpperCase(),
            path: prefix + layer.route.path,
            scope: declaredScopeOf(guard.handle),
          });
        }
      } else if (layer.handle.stack) {
        walk(layer.handle.stack, layer.slash ? prefix : prefix + (layer.rawPath ?? ''));
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return found;
}
