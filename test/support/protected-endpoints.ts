// Every protected endpoint of the gateway, derived from the endpoint declarations
// (gateway/src/endpoints.ts): method, route path (`:id` stands for the id a line's seed returns),
// the scope it declares, and, per operation, how its branch data is seeded in the legacy database
// and recognised in an answer. test/protected-endpoints.test.ts (401/403) and
// test/branch-binding.test.ts (branch rule) walk this table; a declared operation without a
// BRANCH_DATA line fails the first, so a new endpoint's branch behaviour is decided in a test.
import type { Express } from 'express';
import { ENDPOINTS } from '../../gateway/src/endpoints.js';
import type { Scope } from '../../gateway/src/features/auth/scopes.js';
import { declaredScopeOf } from '../../gateway/src/http/authenticate.js';
import { expressPath } from '../../gateway/src/http/endpoint.js';
import type { LegacyDashboard } from './legacy-dashboard.js';

export interface BranchData {
  /** Inserts one row the endpoint answers into `branchId`; returns the id that fills `:id`. */
  seed: (dashboard: LegacyDashboard, branchId: number) => Promise<number>;
  /** The branch of one answered row (an item of a list's `data`, or a single object's `data`). */
  branchOf: (row: any) => number;
  /** The endpoint takes a `branch_id` query filter (a bound client's foreign branch is 403). */
  branchFilter?: boolean;
}

export interface ProtectedEndpoint {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** null: a valid token is enough (revoke). */
  scope: Scope | null;
  /** null: the endpoint answers no branch-owned rows (revoke, packages, market). */
  branchData: BranchData | null;
}

const member = {
  seed: (dashboard: LegacyDashboard, branchId: number) =>
    dashboard.insertMember({ branch_id: branchId }),
  branchOf: (row: { branch_id: number }) => row.branch_id,
};

/** Per operation id: its branch data, or null when it answers no branch-owned rows. */
// prettier-ignore
export const BRANCH_DATA: Record<string, BranchData | null> = {
  revokeToken: null,
  listMembers: { ...member, branchFilter: true },
  getMember: member,
};

export const PROTECTED_ENDPOINTS: ProtectedEndpoint[] = ENDPOINTS.filter(
  (e) => e.access !== 'public',
).map((e) => ({
  operationId: e.operationId,
  method: e.method,
  path: `/api/v1${expressPath(e.path)}`,
  scope: e.access as Scope | null,
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
