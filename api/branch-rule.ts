// The branch rule, the product's central security property, derived in one place from the table
// declarations (read-model/tables/, `branch`): which column names a row's branch, and whether a
// row without one is addressed to every branch. Every reader takes its condition from here: the
// Prisma reads (gateway/src/http/scoped-read.ts), the SQL reads and kept counts
// (api/scoped-sql.ts), the change feed (api/changes/change-statement.ts), the branch a request
// asks for, and the rights of a webhook event at delivery.
import { ident, sql, type Sql } from '#read-model/sql.js';
import { syncTableNamed } from '#read-model/tables/index.js';
import type { BranchRule } from '#read-model/table-definition.js';
import type { DataScope } from './data-scope.js';

/** The rule of a synced table's rows; undefined for rows of no branch (every client sees them). */
export function branchRuleOf(table: string): BranchRule | undefined {
  return syncTableNamed(table).branch;
}

/** Whether a row of `table` whose branch is `rowBranch` is within `scope`. */
export function admitsRow(scope: DataScope, table: string, rowBranch: number | null): boolean {
  const rule = branchRuleOf(table);
  if (scope.kind === 'all-branches' || !rule) return true;
  return rowBranch === null ? rule.nullIsEveryBranch === true : rowBranch === scope.branchId;
}

/**
 * The SQL condition keeping `table`'s rows within `branchId`, over `column` (by default the
 * table's own branch column: a tombstone's or a departure's copy of it is named otherwise); null
 * for a table whose rows belong to no branch.
 */
export function branchCondition(table: string, branchId: number, column?: Sql): Sql | null {
  const rule = branchRuleOf(table);
  if (!rule) return null;
  const name = column ?? ident(rule.column);
  return rule.nullIsEveryBranch
    ? sql`(${name} = ${branchId} OR ${name} IS NULL)`
    : sql`${name} = ${branchId}`;
}

/**
 * The Prisma `where` keeping `table`'s rows within `branchId`; null for rows of no branch.
 */
export function branchWhere(table: string, branchId: number): object | null {
  const rule = branchRuleOf(table);
  if (!rule) return null;
  const own = { [rule.column]: branchId };
  return rule.nullIsEveryBranch ? { OR: [{ [rule.column]: null }, own] } : own;
}

/**
 * The kept counts' branch keys (read-model/kept-counts.ts: a row without a branch is key 0) a
 * read of `table` sums, as the rows it reads: the branch it names, else the caller's (with 0 where
 * such rows are every branch's); undefined: every key; []: none (a bound client naming another
 * branch, refused before this).
 */
export function keptBranchKeys(
  scope: DataScope,
  table: string,
  named: number | undefined,
): number[] | undefined {
  const rule = branchRuleOf(table);
  const bound = rule && scope.kind === 'branch' ? scope.branchId : undefined;
  if (named !== undefined) return bound === undefined || named === bound ? [named] : [];
  if (bound === undefined) return undefined;
  return rule?.nullIsEveryBranch ? [bound, 0] : [bound];
}

/**
 * The branch a request reads, from the caller's binding and the branch it names (undefined:
 * every branch); 'refused' when a bound client names another branch.
 */
export function requestedBranch(
  scope: DataScope,
  named: number | undefined,
): number | undefined | 'refused' {
  if (scope.kind === 'all-branches') return named;
  if (named !== undefined && named !== scope.branchId) return 'refused';
  return scope.branchId;
}
