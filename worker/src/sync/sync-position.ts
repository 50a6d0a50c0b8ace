// Where a table's sync stands (its keyset position on (changed-at, key), or its first load's key)
// and the legacy query that reads the batch after it.
import { empty, raw, sql } from '#read-model/sql.js';
import type { LegacyBatch } from '#read-model/legacy-rows.js';
import { legacyWallClock } from '#read-model/legacy-values.js';
import { legacySource, type SyncTable } from '#read-model/table-definition.js';
import { columnName } from '#read-model/transaction.js';

export interface Position {
  changedAt: Date | null;
  id: bigint;
  /**
   * While a first load reads the table in key order: the last key loaded; `changedAt` is then
   * where the pass by change time starts once the load has read every key. Null otherwise.
   */
  loadKey: bigint | null;
}

export function positionAfter(
  table: SyncTable,
  rows: LegacyBatch,
  position: Position,
  lastBatch: boolean,
): Position {
  // A load in key order that has read every key goes on by change time from its start.
  if (position.loadKey !== null && lastBatch) return { ...position, loadKey: null };
  const last = rows.values.at(-1);
  if (!last) return position;
  const valueOf = (column: string) => last[rows.columns.indexOf(columnName(column))];
  const key = BigInt(valueOf(table.key) as bigint | number);
  if (position.loadKey !== null) return { ...position, loadKey: key };
  return {
    changedAt: table.changedAt ? positionTime(valueOf(table.changedAt)) : null,
    id: key,
    loadKey: null,
  };
}

export function batchQuery(table: SyncTable, from: Position, limit: number) {
  const key = raw(table.key);
  if (!table.changedAt || from.loadKey !== null) {
    const after = from.loadKey ?? from.id;
    return sql`${legacySource(table)} WHERE ${key} > ${after} ORDER BY ${key} LIMIT ${limit}`;
  }
  const changedAt = raw(table.changedAt);
  // The leading `>=` makes this a range scan of the (changed-at, id) index in index order, so a
  // batch costs its own rows and never a sort of everything past the position.
  const after = from.changedAt
    ? sql`WHERE ${changedAt} >= ${from.changedAt} AND (${changedAt} > ${from.changedAt} OR ${key} > ${from.id})`
    : empty;
  return sql`${legacySource(table)} ${after} ORDER BY ${changedAt}, ${key} LIMIT ${limit}`;
}

/**
 * The change column of a batch's last row (read as text, see legacy-values.ts) as a position. A
 * zero or partly zero value ('0000-00-00 00:00:00', '2020-00-10 ...') becomes the first real
 * time after it in MySQL's order (month and day 0 -> 1), so the position always moves forward.
 */
function positionTime(value: unknown): Date {
  const valid = legacyWallClock(value);
  if (valid) return valid;
  const [year = 0, month = 0, day = 0, h = 0, m = 0, s = 0] = String(value)
    .split(/[^0-9]+/)
    .map(Number);
  const position = new Date(0);
  position.setUTCFullYear(year, Math.max(month, 1) - 1, Math.max(day, 1));
  position.setUTCHours(h, m, s, 0);
  return position;
}
