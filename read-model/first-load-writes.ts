// A table's first load written into the read model: each batch mapped straight to COPY's binary
// form (copy-rows.ts) while the next one is read, and copied in; the upsert path of writes.ts when
// PostgreSQL refuses the COPY (docs/decisions/0002, first load).
import { CopyBuffer, copyStatement } from './copy-rows.js';
import { legacyRowObjects, rowView, type LegacyBatch } from './legacy-rows.js';
import type { ReadOrder } from './read-order.js';
import { rejectsRow, type RejectListener, type RejectedRow } from './rejects.js';
import type { ReadModelRow, SyncTable } from './table-definition.js';
import { columnName, type ReadModelTx } from './transaction.js';
import { applyLegacyRows, deleteAndRefresh, settleRejects } from './writes.js';

/**
 * A batch of a table's first load, mapped (mapFirstLoadBatch) once the next batch's read has
 * started: its live rows in COPY's binary form, in a Buffer outside the JavaScript heap.
 */
export interface FirstLoadBatch {
  /** The rows as read, for the upsert path when PostgreSQL refuses the COPY. */
  legacy: LegacyBatch;
  copy: CopyBuffer;
  gone: ReadModelRow[];
  rejected: RejectedRow[];
  /**
   * Ids of the rows mapped, live or gone, whose earlier rejects are cleared; none in key order
   * (the load cleared its table's rejects when it started).
   */
  storedIds: number[];
  /** The order of the read that brought the rows. */
  order: ReadOrder;
}

/**
 * Maps a first-load batch: each row read through a view over its values and dropped at once, the
 * live ones appended to the COPY bytes (copy-rows.ts), the gone ones kept for their delete. A row
 * that cannot be mapped is set aside, as in applyLegacyRows.
 */
export function mapFirstLoadBatch(
  table: SyncTable,
  batch: LegacyBatch,
  { inKeyOrder, order }: { inKeyOrder: boolean; order: ReadOrder },
): FirstLoadBatch {
  const keyIndex = batch.columns.indexOf(columnName(table.key));
  const view = rowView(batch.columns);
  const mapped: FirstLoadBatch = {
    legacy: batch,
    copy: new CopyBuffer(table, order),
    gone: [],
    rejected: [],
    storedIds: [],
    order,
  };
  for (const values of batch.values) {
    const legacy = view.at(values);
    let row: ReadModelRow;
    try {
      row = table.map(legacy);
      if (table.isGone?.(legacy)) mapped.gone.push(row);
      else mapped.copy.append(row);
      // The batch takes the upsert path, which maps every row again (applyFirstLoadBatch).
      if (mapped.copy.refused !== null) break;
    } catch (error) {
      if (!rejectsRow(error)) throw error;
      const id = Number(values[keyIndex]);
      mapped.rejected.push({ table: table.name, id, reason: error.message });
      continue;
    }
    // A load in key order started with no rejects and reads each key once: none to clear.
    if (!inKeyOrder) mapped.storedIds.push(row.id as number);
  }
  return mapped;
}

/**
 * applyLegacyRows for a batch of a table's first load, whose rows are most likely not in the
 * read model: the live rows go in by COPY. The copies of their values in other tables are
 * refreshed once, when the load catches up (refreshDependentsOfTable), not per batch; gone rows,
 * no longer in the table by then, refresh theirs now. When the COPY is refused (by the encoder,
 * a value with no binary form; by PostgreSQL, a row already there or a value out of range), the
 * batch takes applyLegacyRows' path instead. The COPY checks no tombstone: while a table's first
 * load runs, nothing else deletes its rows (its reconciliation waits for the load, and the
 * gateway never deletes), so none can be newer than the load's own reads.
 */
export async function applyFirstLoadBatch(
  tx: ReadModelTx,
  table: SyncTable,
  batch: FirstLoadBatch,
  onRejected?: RejectListener,
): Promise<number> {
  const copied = await copyNewRows(tx, table, batch.copy);
  if (copied === null)
    return applyLegacyRows(tx, table, legacyRowObjects(batch.legacy), batch.order, onRejected);
  const changed = copied + (await deleteAndRefresh(tx, table, [], batch.gone, batch.order));
  await settleRejects(tx, table, batch.rejected, batch.storedIds, onRejected);
  return changed;
}

/**
 * COPY of rows taken to be new, in a savepoint; null when it is refused, for the upsert path to
 * take over: by the encoder, before anything is sent, or by PostgreSQL (a row already there, a
 * value out of range), the savepoint then rolled back.
 */
async function copyNewRows(
  tx: ReadModelTx,
  table: SyncTable,
  copy: CopyBuffer,
): Promise<number | null> {
  if (copy.lines === 0 || copy.refused !== null) {
    // Nothing was sent: the Buffer can serve another batch at once.
    const refused = copy.refused !== null;
    copy.recycle();
    return refused ? null : 0;
  }
  await tx.$executeRaw`SAVEPOINT copy_batch`;
  try {
    const statement = copyStatement(table, { withReadOrder: true });
    const changed = await tx.copyIn(statement, copy.bytes());
    await tx.$executeRaw`RELEASE SAVEPOINT copy_batch`;
    copy.recycle();
    return changed;
  } catch {
    await tx.$executeRaw`ROLLBACK TO SAVEPOINT copy_batch`;
    return null;
  }
}
