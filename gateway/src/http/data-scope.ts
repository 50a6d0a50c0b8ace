// The caller's branch binding. A bound client sees only its branch (scoped-read.ts applies it to
// every query); an unbound one sees all.
import { insufficientScope } from './errors.js';

export type DataScope =
  { readonly kind: 'all-branches' } | { readonly kind: 'branch'; readonly branchId: number };

export function dataScopeOf(branchId: number | null): DataScope {
  return branchId === null ? { kind: 'all-branches' } : { kind: 'branch', branchId };
}

/**
 * The branch filter a list query applies: the client's own branch, or the requested one.
 * A bound client naming another branch is refused with 403.
 */
export function branchFilter(scope: DataScope, requested: number | undefined): number | undefined {
  if (scope.kind === 'all-branches') return requested;
  if (requested !== undefined && requested !== scope.branchId) {
    throw insufficientScope('Bu şubenin verilerine erişim yetkiniz yok.');
  }
  return scope.branchId;
}
