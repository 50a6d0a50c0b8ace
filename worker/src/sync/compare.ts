// Compares a synced table with a fresh projection of its legacy table, chunk by chunk over the
// primary key, so no table is ever loaded whole into memory. Used by the reconciliation (which
// repairs what it finds) and by `npm run sync:verify` (which reports it).
import { empty, ident, join, raw, sql } from '#read-model/sql.js';
import { Prisma } from '#prisma/generated/read-model/client.js';
import { columnName } from '#read-model/transaction.js';
import { legacyRows } from './legacy-reader.js';
import type { SyncDatabases } from './sync-databases.js';
import { mapLegacyRows } from '#read-model/rejects.js';
import {
  legacySource,
  type ColumnType,
  type LegacyRow,
  type SyncTable,
} from '#read-model/table-definition.js';

export interface ChunkComparison {
  /** Legacy rows, as read, of the ids the read model lacks or holds differently. */
  toWrite: LegacyRow[];
  /** Ids the read model holds that no longer exist for readers. */
  toDelete: number[];
  missing: number[];
  extra: number[];
  different: { id: number; columns: string[] }[];
  /** Rows the read model cannot represent, with the reason (they keep their last good copy). */
  rejected: { id: number; reason: string }[];
}

/** A canonical text for a value of a column type, whichever side it came from. */
export function canonical(type: ColumnType, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date)
    return type === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();
  // Both sides hand over scalars here: strings, numbers, bigints, booleans or Decimals.
  const scalar = value as string | number | bigint | boolean;
  switch (type) {
    case 'int':
    case 'bigint':
    case 'text':
    case 'date':
      return String(scalar);
    case 'bool':
      return scalar === true || scalar === 1 || scalar === '1' ? 'true' : 'false';
    case 'decimal':
      return new Prisma.Decimal(String(scalar)).toFixed(2);
    case 'instant':
      return new Date(String(scalar)).toISOString();
  }
}

function differingColumns(
  table: SyncTable,
  expected: Record<string, unknown>,
  actual: Record<string, unknown>,
) {
  return Object.entries(table.columns)
    .filter(
      ([column, type]) => canonical(type, expected[column]) !== canonical(type, actual[column]),
    )
    .map(([column]) => column);
}

export async function* compareTable(
  table: SyncTable,
  db: SyncDatabases,
  chunkSize = 2000,
): AsyncGenerator<ChunkComparison> {
  const key = raw(table.key);
  const keyColumn = columnName(table.key);
  const columns = join(Object.keys(table.columns).map(ident));
  let after = 0n;
  for (;;) {
    const rows = await legacyRows(
      db.legacy,
      sql`${legacySource(table)} WHERE ${key} > ${after} ORDER BY ${key} LIMIT ${chunkSize}`,
    );
    const last = rows.at(-1);
    // The last chunk has no upper bound, so read-model rows past the legacy maximum count too.
    const upper =
      rows.length === chunkSize && last ? BigInt(last[keyColumn] as bigint | number) : null;
    const bound = upper === null ? empty : sql`AND id <= ${upper}`;
    const readRows = await db.readModel.$queryRaw<Record<string, unknown>[]>`SELECT ${columns}
      FROM ${ident(table.name)} WHERE id > ${after} ${bound} ORDER BY id`;

    const held = new Map(readRows.map((row) => [Number(row.id as number | bigint), row]));
    yield classify(table, rows, held);
    if (upper === null) return;
    after = upper;
  }
}

/** Legacy rows of a key range against the read-model rows of the same range. */
export function classify(
  table: SyncTable,
  legacyRows: LegacyRow[],
  held: Map<number, Record<string, unknown>>,
): ChunkComparison {
  const result: ChunkComparison = {
    toWrite: [],
    toDelete: [],
    missing: [],
    extra: [],
    different: [],
    rejected: [],
  };
  const { mapped, rejected } = mapLegacyRows(table, legacyRows);
  const seen = new Set<number>(rejected.map((r) => r.id));
  for (const r of rejected) {
    result.rejected.push({ id: r.id, reason: r.reason });
    const legacyRow = legacyRows.find((row) => Number(row[columnName(table.key)]) === r.id);
    if (legacyRow) result.toWrite.push(legacyRow);
  }
  for (const { legacy, row, gone } of mapped) {
    const id = row.id as number;
    if (gone) continue;
    seen.add(id);
    const current = held.get(id);
    if (!current) {
      result.missing.push(id);
      result.toWrite.push(legacy);
      continue;
    }
    const columnsDiffering = differingColumns(table, row, current);
    if (columnsDiffering.length > 0) {
      result.different.push({ id, columns: columnsDiffering });
      result.toWrite.push(legacy);
    }
  }
  for (const id of held.keys()) {
    if (!seen.has(id)) {
      result.extra.push(id);
      result.toDelete.push(id);
    }
  }
  return result;
}
