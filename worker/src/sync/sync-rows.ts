// Syncing chosen rows now, outside the polling loop: the gateway's member writes use it so the
// read model holds a written row before the answer leaves, mapped by the table's own declaration
// and written through the same upsert path as every polled batch (one mapping, not two).
import { Prisma as LegacySql } from '../../../prisma/generated/legacy/client.js';
import type { LegacyClient, ReadModelClient } from '../../../common/databases.js';
import { applyLegacyRowsReporting, readModelTransaction } from './read-model-writes.js';
import type { LegacyRow, SyncTable } from './table-definition.js';

/** A legacy client or one of its interactive transactions. */
export type LegacyQueries = Pick<LegacyClient, '$queryRaw'>;

/** The rows of `ids`, read through the table's own source query (gone ones included). */
export function readLegacyRows(
  legacy: LegacyQueries,
  table: SyncTable,
  ids: readonly number[],
): Promise<LegacyRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  const key = LegacySql.raw(table.key);
  return legacy.$queryRaw<LegacyRow[]>`${table.source} WHERE ${key} IN (${LegacySql.join(ids)})`;
}

/**
 * Writes legacy rows into the read model exactly as a sync batch would; returns rows changed.
 * A row the read model would set aside fails the call: the caller must not claim it is readable.
 */
export function applyRowsNow(
  readModel: ReadModelClient,
  table: SyncTable,
  rows: LegacyRow[],
): Promise<number> {
  return readModelTransaction(readModel, async (tx) => {
    const { changed, rejected } = await applyLegacyRowsReporting(tx, table, rows);
    if (rejected.length > 0) {
      throw new Error(
        `the read model refused ${table.name} row(s) ${rejected.map((r) => r.id).join(', ')}`,
      );
    }
    return changed;
  });
}
