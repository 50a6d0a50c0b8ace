// Reconciliation: repairs what keyset polling cannot see (hard deletes, in-place changes of
// tables without updated_at, inserts committed out of id order) by comparing the whole table
// with the legacy one, chunk by chunk.
import { compareTable } from './compare.js';
import { applyLegacyRows, deleteRows } from './read-model-writes.js';
import type { SyncDatabases } from './sync-engine.js';
import type { SyncTable } from './table-definition.js';

export interface ReconcileResult {
  table: string;
  written: number;
  deleted: number;
}

export async function reconcileTable(
  table: SyncTable,
  db: SyncDatabases,
  chunkSize = 2000,
): Promise<ReconcileResult> {
  const result: ReconcileResult = { table: table.name, written: 0, deleted: 0 };
  for await (const chunk of compareTable(table, db, chunkSize)) {
    if (chunk.toWrite.length === 0 && chunk.toDelete.length === 0) continue;
    await db.readModel.$transaction(async (tx) => {
      await applyLegacyRows(tx, table, chunk.toWrite, db.onRejected);
      await deleteRows(tx, table, chunk.toDelete);
    });
    result.written += chunk.toWrite.length;
    result.deleted += chunk.toDelete.length;
  }
  return result;
}
