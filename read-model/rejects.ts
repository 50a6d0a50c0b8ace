// Legacy rows the read model cannot represent (a zero date in a NOT NULL field, a value outside a
// documented set, a number PostgreSQL refuses...). They are set aside in sync_rejects with the
// reason, so the rows after them keep flowing, and retried whenever they are read again: when
// they change (the incremental sync) or on every reconciliation pass, which finds them missing.
import { sql, type Sql } from './sql.js';
import { columnName, type ReadModelTx } from './transaction.js';
import { UnmappableValue } from './legacy-values.js';
import type { LegacyRow, ReadModelRow, SyncTable } from './table-definition.js';

export interface RejectedRow {
  table: string;
  id: number;
  reason: string;
}

/** Told of rows rejected for the first time or for a new reason (to count and log them once). */
export type RejectListener = (rows: RejectedRow[]) => void;

export interface MappedRow {
  legacy: LegacyRow;
  row: ReadModelRow;
  gone: boolean;
}

/**
 * Whether a mapping error rejects its row (a value the read model cannot represent): any other is a
 * bug.
 */
export function rejectsRow(error: unknown): error is Error {
  return error instanceof UnmappableValue || error instanceof TypeError;
}

/** Maps each row on its own: one unmappable row is rejected, never the batch. */
export function mapLegacyRows(table: SyncTable, rows: LegacyRow[]) {
  const mapped: MappedRow[] = [];
  const rejected: RejectedRow[] = [];
  const key = columnName(table.key);
  for (const legacy of rows) {
    try {
      mapped.push({ legacy, row: table.map(legacy), gone: table.isGone?.(legacy) ?? false });
    } catch (error) {
      if (!rejectsRow(error)) throw error;
      rejected.push({ table: table.name, id: Number(legacy[key]), reason: error.message });
    }
  }
  return { mapped, rejected };
}

/** Records rejects; returns those that are new or whose reason changed. */
export async function recordRejects(
  tx: ReadModelTx,
  rejected: RejectedRow[],
): Promise<RejectedRow[]> {
  const fresh: RejectedRow[] = [];
  for (const r of rejected) {
    // The CTE sees the row as it was before this statement: its reason, or none.
    const [row] = await tx.$queryRaw<{ fresh: boolean }[]>`
      WITH old AS (SELECT reason FROM sync_rejects WHERE table_name = ${r.table} AND row_id = ${r.id})
      INSERT INTO sync_rejects (table_name, row_id, reason) VALUES (${r.table}, ${r.id}, ${r.reason})
      ON CONFLICT (table_name, row_id) DO UPDATE SET reason = EXCLUDED.reason, last_seen_at = now()
      RETURNING (SELECT reason FROM old) IS DISTINCT FROM ${r.reason} AS fresh`;
    if (row?.fresh) fresh.push(r);
  }
  return fresh;
}

/** Rows that were written (or left for good) are no longer rejected. */
export async function clearRejects(tx: ReadModelTx, table: SyncTable, ids: number[]) {
  if (ids.length === 0) return;
  await tx.$executeRaw`${clearRejectsStatement(table, ids)}`;
}

export function clearRejectsStatement(table: SyncTable, ids: number[]): Sql {
  return sql`DELETE FROM sync_rejects WHERE table_name = ${table.name}
    AND row_id = ANY(${ids.map(String)}::bigint[])`;
}
