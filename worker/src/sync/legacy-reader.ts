// The worker's one way of reading the legacy database: the sync's batches, the reconciliation's
// checksums and repairs, and the comparison `npm run sync:verify` reports all read through the
// legacy client's mariadb pool, never the ORM, which converts every value twice (to its wire form
// and back): most of the worker's time in a backfill (docs/decisions/0002). Values come in the
// one form read-model/legacy-values.ts reads: DECIMAL as its exact text, INT as a number, BIGINT
// as a bigint, every DATE and DATETIME as text (`dateStrings`; a zero date is text too).
import { legacyPool, type LegacyClient } from '#common/legacy-database.js';
import { legacyQuery } from '#common/legacy-query.js';
import type { LegacyBatch } from '#read-model/legacy-rows.js';
import { legacyWallClock } from '#read-model/legacy-values.js';
import { sql, type Sql } from '#read-model/sql.js';
import type { LegacyRow } from '#read-model/table-definition.js';

/** The rows of a query, each as an object by column name. */
export async function legacyRows<T = LegacyRow>(legacy: LegacyClient, query: Sql): Promise<T[]> {
  const rows = await legacyQuery<T[]>(
    legacyPool(legacy),
    { sql: query.sql, dateStrings: true },
    query.values.map(legacyParameter),
  );
  // Just the rows: the driver's array also carries the column metadata.
  return Array.from(rows);
}

/**
 * The rows of a query as one batch: the column names once, each row's values by position
 * (`rowsAsArray`), so the driver builds no object per row (read-model/legacy-rows.ts).
 */
export async function legacyBatch(legacy: LegacyClient, query: Sql): Promise<LegacyBatch> {
  const rows = await legacyQuery<unknown[][] & { meta: { name(): string }[] }>(
    legacyPool(legacy),
    { sql: query.sql, dateStrings: true, rowsAsArray: true },
    query.values.map(legacyParameter),
  );
  return { columns: rows.meta.map((column) => column.name()), values: Array.from(rows) };
}

/**
 * The legacy database's own clock, in its wall-clock form (the session runs at +03:00): through
 * the ORM, this one query per batch cost the worker more CPU than any other ORM call of a
 * backfill.
 */
export async function legacyClock(legacy: LegacyClient): Promise<Date> {
  const [row] = await legacyRows<{ now: string }>(legacy, sql`SELECT NOW() AS now`);
  const now = row && legacyWallClock(row.now);
  if (!now) throw new Error('legacy NOW() returned no time');
  return now;
}

/** A wall-clock Date (a sync position) as the DATETIME text it stands for (its UTC fields). */
function legacyParameter(value: unknown): unknown {
  return value instanceof Date ? value.toISOString().slice(0, 23).replace('T', ' ') : value;
}
