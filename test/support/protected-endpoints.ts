// Every protected endpoint of the gateway, one line each: method, route path (`:id` stands for the
// id a line's seed returns), the scope the route declares, and how its branch data is seeded in
// the legacy database and recognised in an answer. test/protected-endpoints.test.ts (401/403) and
// test/branch-binding.test.ts (branch rule) walk this table; the first also fails when the app
// has a guarded route without a line here, so a new endpoint is covered by adding its line.
import type { Express } from 'express';
import type { Scope } from '../../gateway/src/features/auth/scopes.js';
import { declaredScopeOf } from '../../gateway/src/http/authenticate.js';
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

// prettier-ignore
export const PROTECTED_ENDPOINTS: ProtectedEndpoint[] = [
  { method: 'POST', path: '/api/v1/auth/revoke', scope: null, branchData: null },
  { method: 'GET', path: '/api/v1/members', scope: 'members:list', branchData: { ...member, branchFilter: true } },
  { method: 'GET', path: '/api/v1/members/:id', scope: 'members:read', branchData: member },
  { method: 'POST', path: '/api/v1/members', scope: 'members:write', branchData: member },
  { method: 'PUT', path: '/api/v1/members/:id', scope: 'members:write', branchData: member },
];

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
