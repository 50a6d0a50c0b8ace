// The branch rule as SQL, for the reads that run as SQL statements
// (api/scoped-sql.ts, changes/change-statement.ts): which column ties a table's rows
// to a branch comes from the table's own declaration (read-model/tables/), written once.
import pg from 'pg';
import { syncTableNamed } from '../read-model/tables/index.js';

/**
 * Tables whose rows without a branch are addressed to every branch (as in
 * gateway/src/http/scoped-read.ts).
 */
const NULL_IS_EVERY_BRANCH = new Set(['notifications']);

/**
 * The condition keeping `table`'s rows within the branch given as the SQL parameter `param`
 * (e.g. `$3`); null for a table whose rows belong to no branch.
 */
export function branchCondition(table: string, param: string): string | null {
  const column = syncTableNamed(table).branchColumn;
  if (!column) return null;
  const name = pg.escapeIdentifier(column);
  return NULL_IS_EVERY_BRANCH.has(table)
    ? `(${name} = ${param} OR ${name} IS NULL)`
    : `${name} = ${param}`;
}

/**
 * The kept counts' branch keys a client bound to `branchId` counts (read-model/kept-counts.ts):
 * its branch, and 0 (no branch) where such rows are every branch's.
 */
export function keptBranchKeys(table: string, branchId: number): number[] {
  return NULL_IS_EVERY_BRANCH.has(table) ? [branchId, 0] : [branchId];
}
