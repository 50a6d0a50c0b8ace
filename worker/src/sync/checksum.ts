// Chunk checksums of a synced table, computed inside each database (pt-table-checksum style): for
// every bucket of primary keys, the row count and the XOR of a 64-bit hash of each row's canonical
// text. Both sides build the same text from the same values: MySQL from the table's source query
// (what the mapping reads), PostgreSQL from the read model (what the mapping wrote). Only a few
// numbers per bucket cross the network; the reconciliation descends into buckets that differ.
import { empty, ident, raw, sql } from '#read-model/sql.js';
import { legacyRows } from './legacy-reader.js';
import type { SyncDatabases } from './sync-databases.js';
import { legacySource, type ColumnType, type SyncTable } from '#read-model/table-definition.js';

export interface BucketSum {
  count: number;
  hash: bigint;
}

// No backslash: MySQL reads one in a literal as an escape, PostgreSQL does not.
const NULL_MARK = "'~'";

// MySQL reads dates and datetimes as text (sources CAST them AS CHAR): zero or partly zero ones
// map to null, as legacy-values.ts does.
const mysqlDateText = (v: string) =>
  `IF(LEFT(${v}, 4) = '0000' OR SUBSTRING(${v}, 6, 2) = '00' OR SUBSTRING(${v}, 9, 2) = '00', NULL, ${v})`;

const MYSQL: Record<ColumnType, (v: string) => string> = {
  int: (v) => `CAST(${v} AS CHAR)`,
  bigint: (v) => `CAST(${v} AS CHAR)`,
  text: (v) => v,
  bool: (v) => `IF(${v} = 1, 't', 'f')`,
  decimal: (v) => `CAST(CAST(${v} AS DECIMAL(20, 2)) AS CHAR)`,
  date: mysqlDateText,
  instant: mysqlDateText,
};

// PostgreSQL holds instants in UTC; the legacy wall clock is UTC+03:00 (common/legacy-time.ts).
const POSTGRES: Record<ColumnType, (v: string) => string> = {
  int: (v) => `${v}::text`,
  bigint: (v) => `${v}::text`,
  text: (v) => v,
  bool: (v) => `CASE WHEN ${v} THEN 't' ELSE 'f' END`,
  decimal: (v) => `${v}::numeric(20, 2)::text`,
  date: (v) => `to_char(${v}, 'YYYY-MM-DD')`,
  instant: (v) =>
    `to_char((${v} AT TIME ZONE 'UTC') + interval '3 hours', 'YYYY-MM-DD HH24:MI:SS')`,
};

/** Read-model columns compared by checksum: all but those computed in code from the others. */
function checksumColumns(table: SyncTable): [string, ColumnType][] {
  const computed = new Set(table.computedColumns ?? []);
  return Object.entries(table.columns).filter(([column]) => !computed.has(column));
}

function rowText(table: SyncTable, canonical: Record<ColumnType, (v: string) => string>) {
  const parts = checksumColumns(table).map(
    ([column, type]) => `COALESCE(${canonical[type](`s.\`${column}\``)}, ${NULL_MARK})`,
  );
  return `CONCAT_WS('|', ${parts.join(', ')})`;
}

const mysqlRowTexts = new WeakMap<SyncTable, string>();
const postgresRowTexts = new WeakMap<SyncTable, string>();

function cached(map: WeakMap<SyncTable, string>, table: SyncTable, build: () => string) {
  let value = map.get(table);
  if (value === undefined) {
    value = build();
    map.set(table, value);
  }
  return value;
}

/** Bucket -> sum over [from, to) of the legacy table, as readers see it (gone rows excluded). */
export async function legacyBuckets(
  table: SyncTable,
  db: SyncDatabases,
  from: bigint,
  to: bigint,
  bucketWidth: number,
): Promise<Map<bigint, BucketSum>> {
  const text = cached(mysqlRowTexts, table, () => rowText(table, MYSQL));
  const key = raw(table.key);
  const live = table.goneSql ? raw(`WHERE NOT (${table.goneSql})`) : empty;
  const rows = await legacyRows<{ bucket: bigint; n: bigint; h: bigint | null }>(
    db.legacy,
    sql`SELECT s.id DIV ${bucketWidth} AS bucket, COUNT(*) AS n,
      BIT_XOR(CAST(CONV(LEFT(MD5(${raw(text)}), 16), 16, 10) AS UNSIGNED)) AS h
    FROM (${legacySource(table)} WHERE ${key} >= ${from} AND ${key} < ${to}) s ${live}
    GROUP BY bucket`,
  );
  return new Map(
    rows.map((r) => [
      BigInt(r.bucket),
      { count: Number(r.n), hash: BigInt.asUintN(64, BigInt(r.h ?? 0)) },
    ]),
  );
}

/** Bucket -> sum over [from, to) of the read-model table. */
export async function readModelBuckets(
  table: SyncTable,
  db: SyncDatabases,
  from: bigint,
  to: bigint,
  bucketWidth: number,
): Promise<Map<bigint, BucketSum>> {
  const text = cached(postgresRowTexts, table, () => rowText(table, POSTGRES).replace(/`/g, '"'));
  const rows = await db.readModel.$queryRaw<{ bucket: bigint; n: bigint; h: bigint | null }[]>`
    SELECT s.id::bigint / ${bucketWidth} AS bucket, count(*) AS n,
      bit_xor(('x' || left(md5(${raw(text)}), 16))::bit(64)::bigint) AS h
    FROM ${ident(table.name)} s WHERE s.id >= ${from} AND s.id < ${to}
    GROUP BY 1`;
  return new Map(
    rows.map((r) => [
      BigInt(r.bucket),
      { count: Number(r.n), hash: BigInt.asUintN(64, BigInt(r.h ?? 0)) },
    ]),
  );
}

/** Buckets whose count or hash differ between the two sides. */
export function differingBuckets(
  legacy: Map<bigint, BucketSum>,
  readModel: Map<bigint, BucketSum>,
): bigint[] {
  const buckets = new Set([...legacy.keys(), ...readModel.keys()]);
  return [...buckets]
    .filter((b) => {
      const l = legacy.get(b);
      const r = readModel.get(b);
      return !l || !r || l.count !== r.count || l.hash !== r.hash;
    })
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
