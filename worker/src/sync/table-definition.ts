// A synced table is data, not code: the one engine (sync-engine.ts) reads these declarations.
import type { LegacyPrisma } from '../../../common/databases.js';

/** A value the read model stores: what the mapping of a legacy row produces. */
export type ReadModelValue = string | number | boolean | Date | null;
export type ReadModelRow = Record<string, ReadModelValue>;

/** A row as the legacy database returns it through Prisma's raw queries. */
export type LegacyRow = Record<string, unknown>;

/** A read-model column derived from another synced table (e.g. members.branch_name). */
export interface DependentColumns {
  /** Read-model table holding the copies. */
  table: string;
  /** Its column that points at the source row's id. */
  foreignKey: string;
  /** Column -> SQL expression over the source read-model row, aliased `s`. */
  columns: Record<string, string>;
}

export interface SyncTable {
  /** Name of the read-model table, and the sync position's key. */
  name: string;
  /**
   * SELECT list and FROM clause over the legacy database, without WHERE or ORDER BY. The
   * changed-at and key columns below must be selectable from it.
   */
  source: LegacyPrisma.Sql;
  /** Legacy column (qualified) whose value MySQL bumps on every change. */
  changedAt: string;
  /** Legacy primary key column (qualified). */
  key: string;
  /** Read-model columns, in the order `map` fills them; the first is the primary key `id`. */
  columns: readonly string[];
  /** A legacy row -> its read-model row, or null when the row no longer exists for readers. */
  map(row: LegacyRow): ReadModelRow | null;
  /** Other read-model tables showing a value of this one, refreshed when a row changes. */
  dependents?: readonly DependentColumns[];
}
