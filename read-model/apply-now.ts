// Syncing chosen rows now, outside the polling loop: the gateway's member writes use it so the
// read model holds a written row before the answer leaves, mapped by the table's own declaration
// and written by the same statements as every polled batch (one mapping, not two).
import { readModelPool, type ReadModelClient } from '../common/databases.js';
import type { Prisma as Sql } from '../prisma/generated/read-model/client.js';
import { foldKeptCounts } from './kept-counts.js';
import { applyStatement } from './writes.js';
import { mapLegacyRows } from './rejects.js';
import type { LegacyRow, SyncTable } from './table-definition.js';

/** A statement of the caller's to run within the same statement (its text fixed per `name`). */
export interface Alongside {
  name: string;
  statement: Sql.Sql;
}

/**
 * Rows written after which this process folds the kept counts' deltas itself
 * (read-model/kept-counts.ts). The worker folds every few seconds; while none runs, the deltas of
 * the gateway's writes would pile up, and every total read sums them. A fold that fails leaves
 * them to the next one: nothing is lost.
 */
const FOLD_EVERY_ROWS = 100;
let unfolded = 0;

/**
 * Writes legacy rows into the read model exactly as a sync batch would; returns rows changed.
 * A row the read model would set aside fails the call: the caller must not claim it is readable.
 * One prepared statement on the read model's pool: a write's answer waits for it, and the ORM's
 * interactive transaction cost a round trip per step (docs/decisions/0009-member-writes.md).
 * `alongside` (the gateway's audit record) travels in that statement: one trip for both, and
 * neither is written when either fails.
 */
export async function applyRowsNow(
  readModel: ReadModelClient,
  table: SyncTable,
  rows: LegacyRow[],
  alongside?: Alongside,
): Promise<number> {
  const { mapped, rejected } = mapLegacyRows(table, rows);
  if (rejected.length > 0) {
    throw new Error(
      `the read model refused ${table.name} row(s) ${rejected.map((r) => r.id).join(', ')}`,
    );
  }
  const statement = applyStatement(table, mapped, alongside?.statement);
  const result = await readModelPool(readModel).query<{ changed: string }>({
    name: `apply_rows_now_${table.name}${alongside ? `_with_${alongside.name}` : ''}`,
    text: statement.text,
    values: statement.values,
  });
  unfolded += rows.length;
  if (unfolded >= FOLD_EVERY_ROWS) {
    unfolded = 0;
    foldKeptCounts(readModelPool(readModel)).catch(() => undefined);
  }
  return Number(result.rows[0]?.changed ?? 0);
}
