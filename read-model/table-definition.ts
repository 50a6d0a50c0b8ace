// A synced table is data, not code: the one engine (sync-engine.ts) and the reconciliation
// (reconcile.ts) read these declarations.
import { empty, raw, sql, type Sql } from './sql.js';

/** How a read-model column's values compare (verify, reconcile) and travel to PostgreSQL. */
export type ColumnType = 'int' | 'bigint' | 'text' | 'bool' | 'decimal' | 'date' | 'instant';

/**
 * The PostgreSQL type of each column type: copy-rows.ts writes the binary form of these, and
 * test/sync/copy-rows.test.ts checks that every synced column has its type's.
 */
export const PG_TYPES: Record<ColumnType, string> = {
  int: 'integer',
  bigint: 'bigint',
  text: 'text',
  bool: 'boolean',
  decimal: 'numeric',
  date: 'date',
  instant: 'timestamptz',
};

/**
 * A value the read model stores: what the mapping of a legacy row produces. Instants are ISO text
 * (legacy-values.ts), as the API shows them.
 */
export type ReadModelValue = string | number | boolean | null;
export type ReadModelRow = Record<string, ReadModelValue>;

/** A row as the worker's legacy reader returns it (worker/src/sync/legacy-reader.ts). */
export type LegacyRow = Record<string, unknown>;

/** Read-model columns derived from this table's rows (e.g. members.branch_name from branches). */
export interface DependentColumns {
  /** Read-model table holding the copies, aliased `d`. */
  table: string;
  /** SQL joining a dependent row `d` to a synced row `s` of this table (its mapped columns). */
  on: string;
  /** Column of `d` -> SQL expression over `s` (and `d`) giving its value. */
  columns: Record<string, string>;
  /**
   * The columns of `s` that `on` and `columns` read; `id` is always read. A refresh for rows
   * gone from the table sends these values only.
   */
  reads: readonly string[];
  /**
   * Read-model tables an expression looks rows up in once per row it updates (a subquery), each
   * with the columns it looks them up by: indexes they lead stay through the first load of the
   * looked-up table, or the refresh at its own catch-up would scan it once per row.
   */
  lookups?: Readonly<Record<string, readonly string[]>>;
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
  /** The synced legacy table, and the alias that `select`, `key` and `changedAt` name it by. */
  from: { table: string; alias: string };
  /** The SELECT list over `from` and `joins`: the legacy row `map` reads (legacySource). */
  select: string;
  /**
   * Other legacy tables, joined to `from` for values the rows show (a member's branch name).
   * LEFT JOINs from the synced table: otherwise MySQL may drive from the small joined table and
   * sort every remaining row for each batch instead of walking the synced table's index.
   */
  joins?: string;
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

/** A table's source query over the legacy database, without WHERE or ORDER BY. */
export function legacySource(table: SyncTable): Sql {
  const { from, select, joins } = table;
  return sql`SELECT ${raw(select)} FROM ${raw(`${from.table} ${from.alias}`)} ${joins ? raw(joins) : empty}`;
}
