// The deletes of rows a read found gone: each leaves a tombstone with its read's order, which the
// change feed shows and no older read can undo.
import { ident, raw, sql, type Sql } from './sql.js';
import { readOrderParameter, type ReadOrder, type ReadOrderSql } from './read-order.js';
import { PG_TYPES, type SyncTable } from './table-definition.js';
import { type ReadModelTx } from './transaction.js';

/** The SQL array type of a table's ids, for `id = ANY($n::...)`. */
export const idArray = (table: SyncTable) => raw(`${PG_TYPES[table.columns.id ?? 'int']}[]`);

/**
 * The deletes of a read as data-modifying CTEs: `deleted` (the ids deleted) and `buried` (the
 * ids whose tombstone now carries this read's order). A row is deleted, and its tombstone
 * written, unless a later read wrote it. A tombstone keeps the row's branch and whether the
 * delete removed a row: the change feed shows those (docs/decisions/0011-change-feed.md).
 */
export function deleteParts(table: SyncTable, ids: number[], order: ReadOrderSql): Sql {
  const name = ident(table.name);
  const cast = idArray(table);
  const branch = raw(table.branch ? `t.${table.branch.column}` : 'NULL::integer');
  return sql`gone AS (SELECT unnest(${ids}::${cast}) AS id),
    deleted AS (DELETE FROM ${name} t USING gone g
      WHERE t.id = g.id AND t.read_order < ${order} RETURNING t.id, ${branch} AS branch_id),
    buried AS (INSERT INTO sync_tombstones (table_name, row_id, read_order, branch_id, shown)
      SELECT ${table.name}, g.id, ${order}, d.branch_id, d.id IS NOT NULL
      FROM gone g LEFT JOIN deleted d ON d.id = g.id
      WHERE NOT EXISTS (SELECT 1 FROM ${name} x WHERE x.id = g.id AND x.read_order > ${order})
      ON CONFLICT (table_name, row_id) DO UPDATE
        SET read_order = EXCLUDED.read_order,
          -- Only a delete that removed the row again is a change (the trigger then moves
          -- change_xid): a re-read of a row already gone changes nothing.
          deleted_at = CASE WHEN EXCLUDED.shown THEN EXCLUDED.deleted_at
            ELSE sync_tombstones.deleted_at END,
          branch_id = COALESCE(EXCLUDED.branch_id, sync_tombstones.branch_id),
          shown = sync_tombstones.shown OR EXCLUDED.shown
        WHERE sync_tombstones.read_order < EXCLUDED.read_order
      RETURNING row_id)`;
}

/** Rows a read found deleted, by id (reconciliation: gone from the legacy table). */
export async function deleteRows(
  tx: ReadModelTx,
  table: SyncTable,
  ids: number[],
  order: ReadOrder,
): Promise<number> {
  if (ids.length === 0) return 0;
  const [row] = await tx.$queryRaw<{ changed: number }[]>`WITH ${deleteParts(
    table,
    ids,
    readOrderParameter(order),
  )} SELECT count(*)::int AS changed FROM deleted`;
  return row?.changed ?? 0;
}
