// The upsert of mapped rows into their read-model table: the statement, built from parts made
// once per table, and its run, which sets aside the rows PostgreSQL refuses.
import { empty, ident, join, raw, sql, type Sql } from './sql.js';
import pg from 'pg';
import { copiesHeldBy } from './dependents.js';
import { readOrderParameter, type ReadOrder, type ReadOrderSql } from './read-order.js';
import type { RejectedRow } from './rejects.js';
import type { ReadModelRow, SyncTable } from './table-definition.js';
import { type ReadModelTx } from './transaction.js';

/**
 * Upserts in one statement; when PostgreSQL refuses it (a number out of range, a byte sequence it
 * does not accept), retries row by row, each in its own savepoint, to find the rows it refuses.
 * Only PostgreSQL's refusals set a row aside: any other error (a bug in building the statement)
 * fails the batch, never every row of it quietly.
 */
export async function upsertIsolatingFailures(
  tx: ReadModelTx,
  table: SyncTable,
  rows: ReadModelRow[],
  order: ReadOrder,
) {
  const failed: RejectedRow[] = [];
  if (rows.length === 0) return { changed: 0, failed };
  try {
    await tx.$executeRaw`SAVEPOINT upsert_batch`;
    const changed = await upsertRows(tx, table, rows, order);
    await tx.$executeRaw`RELEASE SAVEPOINT upsert_batch`;
    return { changed, failed };
  } catch (error) {
    await tx.$executeRaw`ROLLBACK TO SAVEPOINT upsert_batch`;
    if (!(error instanceof pg.DatabaseError)) throw error;
  }
  let changed = 0;
  for (const row of rows) {
    try {
      await tx.$executeRaw`SAVEPOINT upsert_row`;
      changed += await upsertRows(tx, table, [row], order);
      await tx.$executeRaw`RELEASE SAVEPOINT upsert_row`;
    } catch (error) {
      await tx.$executeRaw`ROLLBACK TO SAVEPOINT upsert_row`;
      if (!(error instanceof pg.DatabaseError)) throw error;
      failed.push({ table: table.name, id: row.id as number, reason: refusal(error) });
    }
  }
  return { changed, failed };
}

/** PostgreSQL's own words (e.g. 'value "3000000000" is out of range for type integer'). */
function refusal(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const words = /Message: `([^`]*)`/.exec(message)?.[1] ?? message;
  return `read model refused the row: ${words}`.slice(0, 500);
}

/**
 * Returns the number of rows actually inserted or changed (identical rows are not rewritten, and
 * neither is a row a later read wrote). The rows travel as one JSON parameter that PostgreSQL
 * turns into rows of the table's own type (json_populate_recordset): JSON.stringify is native
 * and the server parses the text in one pass, where one array per column cost a conversion of
 * every value in the driver and the ORM (docs/decisions/0002-sync-by-polling-with-look-back.md).
 */
export async function upsertRows(
  tx: ReadModelTx,
  table: SyncTable,
  rows: ReadModelRow[],
  order: ReadOrder,
): Promise<number> {
  if (rows.length === 0) return 0;
  return tx.$executeRaw`${upsertStatement(table, rows, readOrderParameter(order))}`;
}

/**
 * The upsert of upsertRows, as SQL (an empty `rows` inserts nothing). A row is inserted unless a
 * later read found it deleted (its tombstone), and replaced only by a later read than the one
 * that wrote it, with other values. Columns copied from another table (members.branch_name) take
 * the value of that table's read-model row when it has one, never the legacy join's, which may
 * be older: a copy always equals its source in the read model, which never goes back in time.
 */
export function upsertStatement(table: SyncTable, rows: ReadModelRow[], order: ReadOrderSql): Sql {
  const { columnList, incomingValues, derivedJoins, assignments, current, incoming } =
    upsertParts(table);
  return sql`INSERT INTO ${ident(table.name)} AS t (${columnList}, read_order)
    SELECT ${incomingValues}, ${order}
    FROM json_populate_recordset(NULL::${ident(table.name)}, ${JSON.stringify(rows)}::json) AS d
    ${derivedJoins}
    WHERE NOT EXISTS (SELECT 1 FROM sync_tombstones z
      WHERE z.table_name = ${table.name} AND z.row_id = d.id AND z.read_order > ${order})
    ON CONFLICT (id) DO UPDATE SET ${assignments}, read_order = EXCLUDED.read_order
    WHERE t.read_order < EXCLUDED.read_order AND (${current}) IS DISTINCT FROM (${incoming})`;
}

const upsertStatements = new WeakMap<SyncTable, ReturnType<typeof buildUpsertParts>>();

function upsertParts(table: SyncTable) {
  let parts = upsertStatements.get(table);
  if (!parts) {
    parts = buildUpsertParts(table);
    upsertStatements.set(table, parts);
  }
  return parts;
}

function buildUpsertParts(table: SyncTable) {
  const columns = Object.keys(table.columns);
  const updatable = columns.filter((c) => c !== 'id');
  // Each source joined laterally as `copy_N` (the incoming row is `d`, the source row `s`, as in
  // the declarations); a copied column is the source's value when the source row exists.
  const copiedFrom = new Map<string, Sql>();
  const derivedJoins = copiesHeldBy(table).map(({ source, copy }, i) => {
    const alias = raw(`copy_${i}`);
    const values = Object.entries(copy.columns).map(([column, expression]) => {
      copiedFrom.set(column, alias);
      return sql`${raw(expression)} AS ${ident(column)}`;
    });
    return sql`LEFT JOIN LATERAL (SELECT true AS found, ${join(values, ', ')}
      FROM ${ident(source.name)} s WHERE ${raw(copy.on)} LIMIT 1) ${alias} ON true`;
  });
  const incomingValues = columns.map((c) => {
    const alias = copiedFrom.get(c);
    const column = ident(c);
    return alias
      ? sql`CASE WHEN ${alias}.found THEN ${alias}.${column} ELSE d.${column} END`
      : sql`d.${column}`;
  });
  return {
    columnList: join(columns.map(ident)),
    incomingValues: join(incomingValues),
    derivedJoins: derivedJoins.length > 0 ? join(derivedJoins, ' ') : empty,
    assignments: join(updatable.map((c) => sql`${ident(c)} = EXCLUDED.${ident(c)}`)),
    current: join(updatable.map((c) => sql`t.${ident(c)}`)),
    incoming: join(updatable.map((c) => sql`EXCLUDED.${ident(c)}`)),
  };
}
