// A synced table is data, not code: the one engine (sync-engine.ts) and the reconciliation
// (reconcile.ts) read these declarations.
import type { LegacyPrisma } from '../common/databases.js';

/** How a read-model column's values compare (verify, reconcile) and travel to PostgreSQL. */
export type ColumnType = 'int' | 'bigint' | 'text' | 'bool' | 'decimal' | 'date' | 'instant';

/**
 * A value the read model stores: what the mapping of a legacy row produces. Instants are ISO text
 * (legacy-values.ts), as the API shows them.
 */
export type ReadModelValue = string | number | boolean | null;
export type ReadModelRow = Record<string, ReadModelValue>;

/** A row as the legacy database returns it through Prisma's raw queries. */
export type LegacyRow = Record<string, unknown>;

/** Read-model columns derived from this table's rows (e.g. members.branch_name from branches). */
export interface DependentColumns {
  /** Read-model table holding the copies, aliased `d`. */
  table: string;
  /** SQL joining a dependent row `d` to a synced row `s` of this table (its mapped columns). */
  on: string;
  /** Column of `d` -> SQL expression over `s` (and `d`) giving its value. */
  columns: Record<string, string>;
}

/** Which rows of a table a client bound to one branch sees. */
export interface BranchRule {
  /** The column naming a row's branch: `branch_id`, `id` for the branches themselves. */
  column: 'branch_id' | 'id';
  /** A row whose column is NULL is addressed to every branch (otherwise: to none). */
  nullIsEveryBranch?: true;
}

export interface SyncTable {
  /** Name of the read-model table, and the sync position's key. */
  name: string;
  /**
   * SELECT list and FROM clause over the legacy database, without WHERE or ORDER BY. Joins are
   * STRAIGHT_JOIN from the synced table: otherwise MySQL may drive from the small joined table
   * and sort every remaining row for each batch instead of walking the synced table's index.
   */
  source: LegacyPrisma.Sql;
  /**
   * Legacy column (qualified) that MySQL bumps on every change; null for tables without one,
   * which are polled for new ids only and reconciled for changes.
   */
  changedAt: string | null;
  /** Legacy primary key column (qualified). */
  key: string;
  /**
   * The branch rule of this table's rows, declared here only: every reader derives its condition
   * from it (api/branch-rule.ts). Absent: rows of no branch, which every client sees.
   */
  branch?: BranchRule;
  /** Read-model columns and their types; the first is the primary key `id`. */
  columns: Record<string, ColumnType>;
  /** A legacy row -> its read-model row (API-ready values). */
  map(row: LegacyRow): ReadModelRow;
  /**
   * Whether a legacy row no longer exists for readers (a soft delete); it leaves the read model.
   */
  isGone?(row: LegacyRow): boolean;
  /** isGone as SQL over the source's columns aliased `s`, for checksums computed in MySQL. */
  goneSql?: string;
  /**
   * Read-model columns computed in code from other columns (search folds): left out of the
   * chunk checksums, which MySQL computes; they follow the columns they are computed from.
   */
  computedColumns?: readonly string[];
  /**
   * Other read-model tables showing values of this one, refreshed from every synced row, gone
   * ones included, so a copy never outlives a rename made just before a delete.
   */
  dependents?: readonly DependentColumns[];
}
