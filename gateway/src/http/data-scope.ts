// The branch filter of list queries, from the caller's branch binding (DataScope,
// api/data-scope.ts) and the branch rule (api/branch-rule.ts).
import { requestedBranch } from '#api/branch-rule.js';
import type { DataScope } from '#api/data-scope.js';
import { insufficientScope } from './errors.js';

/**
 * The branch filter a list query applies: the client's own branch, or the requested one.
 * A bound client naming another branch is refused with 403.
 */
export function branchFilter(scope: DataScope, requested: number | undefined): number | undefined {
  const branch = requestedBranch(scope, requested);
  if (branch === 'refused') throw insufficientScope('Bu şubenin verilerine erişim yetkiniz yok.');
  return branch;
}
