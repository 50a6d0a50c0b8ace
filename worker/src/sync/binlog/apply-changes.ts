// A batch of committed transactions from the binary log, applied: the events only name the keys
// they touched; each table's rows are read again by key through its own source query (joins
// included) and written as reconciliation repairs are (reconcile.ts, repairRange), so decision
// 0002's rule holds: a read that starts after a change's commit sees it or a newer version.
// Keys no longer found are deleted with a tombstone. The position commits with the rows.
import { deleteRows } from '#read-model/deletes.js';
import { nextReadOrder, type ReadOrder } from '#read-model/read-order.js';
import { join, raw, sql } from '#read-model/sql.js';
import { legacySource, type LegacyRow, type SyncTable } from '#read-model/table-definition.js';
import { columnName, readModelTransaction } from '#read-model/transaction.js';
import { applyLegacyRows } from '#read-model/writes.js';
import { legacyRows } from '../legacy-reader.js';
import type { SyncDatabases } from '../sync-databases.js';
import { writeBinlogPosition, type BinlogPosition } from './binlog-position.js';

/** The keys a batch's row events touched, per synced table. */
export type ChangedKeys = Map<SyncTable, Set<number>>;

export interface AppliedBatch {
  keys: number;
  written: number;
  deleted: number;
}

interface TableRead {
  table: SyncTable;
  order: ReadOrder;
  rows: LegacyRow[];
  gone: number[];
}

export async function applyChangedKeys(
  db: SyncDatabases,
  changed: ChangedKeys,
  through: BinlogPosition,
): Promise<AppliedBatch> {
  const reads: TableRead[] = [];
  let keys = 0;
  for (const [table, ids] of changed) {
    if (ids.size === 0) continue;
    keys += ids.size;
    // The read number is taken before the read, as every other write of the sync does.
    const order = await nextReadOrder(db.readModel);
    const list = [...ids];
    const rows = await legacyRows(
      db.legacy,
      sql`${legacySource(table)} WHERE ${raw(table.key)} IN (${join(list)})`,
    );
    await db.afterRead?.(table);
    const found = new Set(rows.map((row) => Number(row[columnName(table.key)] as number | bigint)));
    reads.push({ table, order, rows, gone: list.filter((id) => !found.has(id)) });
  }
  const result = await readModelTransaction(db.readModel, async (tx) => {
    // Rows and position commit together: a commit lost in a crash is read again from the log.
    await tx.$executeRaw`SET LOCAL synchronous_commit TO OFF`;
    const applied = { keys, written: 0, deleted: 0 };
    for (const { table, order, rows, gone } of reads) {
      applied.written += await applyLegacyRows(tx, table, rows, order, db.onRejected);
      applied.deleted += await deleteRows(tx, table, gone, order);
    }
    await writeBinlogPosition(tx, through);
    return applied;
  });
  if (result.written + result.deleted > 0) db.onCommitted?.();
  return result;
}
