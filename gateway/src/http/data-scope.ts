// The branch rule as one mechanism: every read query takes a DataScope, so no endpoint can
// forget it. A bound client sees only its branch; an unbound one sees all.
import { insufficientScope } from './errors.js';

export type DataScope =
  { readonly kind: 'all-branches' } | { readonly kind: 'branch'; readonly branchId: number };

export function dataScopeOf(branchId: number | null): DataScope {
  return branchId === null ? { kind: 'all-branches' } : { kind: 'branch', branchId };
}

/**
 * The branch filter a list query applies: the client's own branch, or the requested one.
 * Asking a bound client's query for another branch is 403 (decisions.md).
 */
export function branchFilter(scope: DataScope, requested: number | undefined): number | undefined {
  if (scope.kind === 'all-branches') return requested;
  if (requested !== undefined && requested !== scope.branchId) {
    throw insufficientScope('Bu şubenin verilerine erişim yetkiniz yok.');
  }
  return scope.branchId;
}

/** Whether a single object of `branchId` is visible; invisible objects answer 404. */
export function canSee(scope: DataScope, branchId: number): boolean {
  return scope.kind === 'all-branches' || scope.branchId === branchId;
}
