// The read model's write path for the rows of a legacy read (a polled batch, a reconciliation
// repair): idempotent upserts, deletes of gone rows, the refresh of their copies in other tables
// and the rows set aside. Every write is ordered by its read (read-order.ts): a row, a delete or
// a derived copy never goes back to an older version. A first load's batches take
// first-load-writes.ts; the gateway's member writes, apply-now.ts.
import { ident, join, raw, sql } from './sql.js';
import { deleteParts, idArray } from './deletes.js';
import { buriedRows, dependentStatement, sourceColumnList } from './dependents.js';
import { readOrderParameter, type ReadOrder } from './read-order.js';
import {
  clearRejects,
  mapLegacyRows,
  recordRejects,
  type RejectListener,
  type RejectedRow,
} from './rejects.js';
import type { LegacyRow, ReadModelRow, SyncTable } from './table-definition.js';
import { type ReadModelTx } from './transaction.js';
import { upsertIsolatingFailures } from './upsert.js';

/**
 * Legacy rows of the read `order` -> read model: upsert the live ones, delete the gone ones,
 * refresh dependents. A row that cannot be mapped or stored is set aside in sync_rejects
 * (rejects.ts) and the others are written: one bad legacy row never stops its table. Returns the
 * rows changed.
 */
export async function applyLegacyRows(
  tx: ReadModelTx,
  table: SyncTable,
  rows: LegacyRow[],
  order: ReadOrder,
  onRejected?: RejectListener,
): Promise<number> {
  const { mapped, rejected } = mapLegacyRows(table, rows);
  const live = mapped.filter((m) => !m.gone).map((m) => m.row);
  const gone = mapped.filter((m) => m.gone).map((m) => m.row);
  const upserted = await upsertIsolatingFailures(tx, table, live, order);
  rejected.push(...upserted.failed);
  const failedIds = new Set(upserted.failed.map((f) => f.id));
  const storedLive = live.filter((row) => !failedIds.has(row.id as number));
  const changed = upserted.changed + (await deleteAndRefresh(tx, table, storedLive, gone, order));
  const stored = [...storedLive, ...gone];
  await settleRejects(
    tx,
    table,
    rejected,
    stored.map((row) => row.id as number),
    onRejected,
  );
  return changed;
}

/** Records the batch's rejects (telling `onRejected` of fresh ones) and clears the stored rows'. */
export async function settleRejects(
  tx: ReadModelTx,
  table: SyncTable,
  rejected: RejectedRow[],
  storedIds: number[],
  onRejected?: RejectListener,
) {
  if (rejected.length > 0) {
    const fresh = await recordRejects(tx, rejected);
    if (fresh.length > 0) onRejected?.(fresh);
  }
  await clearRejects(tx, table, storedIds);
}

/**
 * The gone rows of a read deleted, then every copy of the read's rows' values in other tables
 * refreshed, in one statement: from the read-model rows of the live ones (as written, or as a
 * later read wrote them) and from the gone rows as read, where this read buried them, so a rename
 * just before a delete still reaches the copies. Runs for unchanged rows too: a copy written by a
 * concurrent run of the dependent table is mended on the next look-back pass. Returns the rows
 * deleted.
 */
export async function deleteAndRefresh(
  tx: ReadModelTx,
  table: SyncTable,
  live: ReadModelRow[],
  gone: ReadModelRow[],
  order: ReadOrder,
): Promise<number> {
  const dependents = table.dependents ?? [];
  if (gone.length === 0 && (live.length === 0 || dependents.length === 0)) return 0;
  const at = readOrderParameter(order);
  const liveIds = live.map((row) => row.id as number);
  const refreshes = dependents.map((dependent, i) => {
    const columns = sourceColumnList(table, dependent);
    const source = sql`SELECT ${columns} FROM ${ident(table.name)}
      WHERE id = ANY(${liveIds}::${idArray(table)})
      UNION ALL ${buriedRows(table, dependent, gone)}`;
    return sql`, ${raw(`dependent_${i}`)} AS (${dependentStatement(table, dependent, source)})`;
  });
  const [row] = await tx.$queryRaw<{ changed: number }[]>`WITH ${deleteParts(
    table,
    gone.map((r) => r.id as number),
    at,
  )}${join(refreshes, '')} SELECT count(*)::int AS changed FROM deleted`;
  return row?.changed ?? 0;
}
