// Writing synced rows into the read model: idempotent upserts, deletes of gone rows, and the
// refresh of dependent copies. Shared by the incremental sync, the reconciliation and the
// gateway's member writes. Every write is ordered by its read (read-order.ts): a row, a delete
// or a derived copy never goes back to an older version.
import pg from 'pg';
import { Prisma as Sql } from '../prisma/generated/read-model/client.js';
import { CopyBuffer, copyStatement } from './copy-rows.js';
import { legacyRowObjects, rowView, type LegacyBatch } from './legacy-rows.js';
import { readOrderParameter, type ReadOrder, type ReadOrderSql } from './read-order.js';
import {
  clearRejects,
  clearRejectsStatement,
  mapLegacyRows,
  recordRejects,
  rejectsRow,
  type RejectListener,
  type RejectedRow,
} from './rejects.js';
import type {
  ColumnType,
  DependentColumns,
  LegacyRow,
  ReadModelRow,
  SyncTable,
} from './table-definition.js';
import { SYNC_TABLES } from './tables/index.js';
import { columnName, ident, type ReadModelTx } from './transaction.js';

/**
 * The PostgreSQL type of each column type: copy-rows.ts writes the binary form of these, and
 * test/copy-rows.test.ts checks that every synced column has its type's.
 */
export const PG_TYPES: Record<ColumnType, string> = {
  int: 'integer',
  bigint: 'bigint',
  text: 'text',
  bool: 'boolean',
  decimal: 'numeric',
  date: 'date',
  instant: 'timestamptz',
};

/**
 * Legacy rows of the read `order` -> read model: upsert the live ones, delete the gone ones,
 * refresh dependents. A row that cannot be mapped or stored is set aside in sync_rejects
 * (rejects.ts) and the others are written: one bad legacy row never stops its table. Returns the
 * rows changed.
 */
export async function applyLegacyRows(
  tx: ReadModelTx,
  table: SyncTable,
  rows: LegacyRow[],
  order: ReadOrder,
  onRejected?: RejectListener,
): Promise<number> {
  const { mapped, rejected } = mapLegacyRows(table, rows);
  const live = mapped.filter((m) => !m.gone).map((m) => m.row);
  const gone = mapped.filter((m) => m.gone).map((m) => m.row);
  const upserted = await upsertIsolatingFailures(tx, table, live, order);
  rejected.push(...upserted.failed);
  const failedIds = new Set(upserted.failed.map((f) => f.id));
  const storedLive = live.filter((row) => !failedIds.has(row.id as number));
  const changed = upserted.changed + (await deleteAndRefresh(tx, table, storedLive, gone, order));
  const stored = [...storedLive, ...gone];
  await settleRejects(
    tx,
    table,
    rejected,
    stored.map((row) => row.id as number),
    onRejected,
  );
  return changed;
}

/** Records the batch's rejects (telling `onRejected` of fresh ones) and clears the stored rows'. */
async function settleRejects(
  tx: ReadModelTx,
  table: SyncTable,
  rejected: RejectedRow[],
  storedIds: number[],
  onRejected?: RejectListener,
) {
  if (rejected.length > 0) {
    const fresh = await recordRejects(tx, rejected);
    if (fresh.length > 0) onRejected?.(fresh);
  }
  await clearRejects(tx, table, storedIds);
}

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

/**
 * Upserts in one statement; when PostgreSQL refuses it (a number out of range, a byte sequence it
 * does not accept), retries row by row, each in its own savepoint, to find the rows it refuses.
 * Only PostgreSQL's refusals set a row aside: any other error (a bug in building the statement)
 * fails the batch, never every row of it quietly.
 */
async function upsertIsolatingFailures(
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
function upsertStatement(table: SyncTable, rows: ReadModelRow[], order: ReadOrderSql): Sql.Sql {
  const { columnList, incomingValues, derivedJoins, assignments, current, incoming } =
    upsertParts(table);
  return Sql.sql`INSERT INTO ${ident(table.name)} AS t (${columnList}, read_order)
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

/** The copies of other tables' values held in `table`: each source with its declaration. */
function copiesHeldBy(table: SyncTable): { source: SyncTable; copy: DependentColumns }[] {
  return SYNC_TABLES.flatMap((source) =>
    (source.dependents ?? [])
      .filter((copy) => copy.table === table.name)
      .map((copy) => ({ source, copy })),
  );
}

function buildUpsertParts(table: SyncTable) {
  const columns = Object.keys(table.columns);
  const updatable = columns.filter((c) => c !== 'id');
  // Each source joined laterally as `copy_N` (the incoming row is `d`, the source row `s`, as in
  // the declarations); a copied column is the source's value when the source row exists.
  const copiedFrom = new Map<string, string>();
  const derivedJoins = copiesHeldBy(table).map(({ source, copy }, i) => {
    const alias = `copy_${i}`;
    const values = Object.entries(copy.columns).map(([column, expression]) => {
      copiedFrom.set(column, alias);
      return `${expression} AS ${pg.escapeIdentifier(column)}`;
    });
    return Sql.raw(`LEFT JOIN LATERAL (SELECT true AS found, ${values.join(', ')}
      FROM ${pg.escapeIdentifier(source.name)} s WHERE ${copy.on} LIMIT 1) ${alias} ON true`);
  });
  const incomingValues = columns.map((c) => {
    const alias = copiedFrom.get(c);
    const column = pg.escapeIdentifier(c);
    return Sql.raw(
      alias
        ? `CASE WHEN ${alias}.found THEN ${alias}.${column} ELSE d.${column} END`
        : `d.${column}`,
    );
  });
  return {
    columnList: Sql.join(columns.map(ident)),
    incomingValues: Sql.join(incomingValues),
    derivedJoins: derivedJoins.length > 0 ? Sql.join(derivedJoins, ' ') : Sql.empty,
    assignments: Sql.join(updatable.map((c) => Sql.sql`${ident(c)} = EXCLUDED.${ident(c)}`)),
    current: Sql.join(updatable.map((c) => Sql.sql`t.${ident(c)}`)),
    incoming: Sql.join(updatable.map((c) => Sql.sql`EXCLUDED.${ident(c)}`)),
  };
}

/** The SQL array type of a table's ids, for `id = ANY($n::...)`. */
const idArray = (table: SyncTable) => Sql.raw(`${PG_TYPES[table.columns.id ?? 'int']}[]`);

/**
 * The deletes of a read as data-modifying CTEs: `deleted` (the ids deleted) and `buried` (the
 * ids whose tombstone now carries this read's order). A row is deleted, and its tombstone
 * written, unless a later read wrote it. A tombstone keeps the row's branch and whether the
 * delete removed a row: the change feed shows those (docs/decisions/0011-change-feed.md).
 */
function deleteParts(table: SyncTable, ids: number[], order: ReadOrderSql): Sql.Sql {
  const name = ident(table.name);
  const cast = idArray(table);
  const branch = Sql.raw(table.branch ? `t.${table.branch.column}` : 'NULL::integer');
  return Sql.sql`gone AS (SELECT unnest(${ids}::${cast}) AS id),
    deleted AS (DELETE FROM ${name} t USING gone g
      WHERE t.id = g.id AND t.read_order < ${order} RETURNING t.id, ${branch} AS branch_id),
    buried AS (INSERT INTO sync_tombstones (table_name, row_id, read_order, branch_id, shown)
      SELECT ${table.name}, g.id, ${order}, d.branch_id, d.id IS NOT NULL
      FROM gone g LEFT JOIN deleted d ON d.id = g.id
      WHERE NOT EXISTS (SELECT 1 FROM ${name} x WHERE x.id = g.id AND x.read_order > ${order})
      ON CONFLICT (table_name, row_id) DO UPDATE
        SET read_order = EXCLUDED.read_order,
          -- Only a delete that removed the row again is a change (the trigger then moves
          -- change_xid): a re-read of a row already gone changes nothing.
          deleted_at = CASE WHEN EXCLUDED.shown THEN EXCLUDED.deleted_at
            ELSE sync_tombstones.deleted_at END,
          branch_id = COALESCE(EXCLUDED.branch_id, sync_tombstones.branch_id),
          shown = sync_tombstones.shown OR EXCLUDED.shown
        WHERE sync_tombstones.read_order < EXCLUDED.read_order
      RETURNING row_id)`;
}

/** Rows a read found deleted, by id (reconciliation: gone from the legacy table). */
export async function deleteRows(
  tx: ReadModelTx,
  table: SyncTable,
  ids: number[],
  order: ReadOrder,
): Promise<number> {
  if (ids.length === 0) return 0;
  const [row] = await tx.$queryRaw<{ changed: number }[]>`WITH ${deleteParts(
    table,
    ids,
    readOrderParameter(order),
  )} SELECT count(*)::int AS changed FROM deleted`;
  return row?.changed ?? 0;
}

/**
 * The gone rows of a read deleted, then every copy of the read's rows' values in other tables
 * refreshed, in one statement: from the read-model rows of the live ones (as written, or as a
 * later read wrote them) and from the gone rows as read, where this read buried them, so a rename
 * just before a delete still reaches the copies. Runs for unchanged rows too: a copy written by a
 * concurrent run of the dependent table is mended on the next look-back pass. Returns the rows
 * deleted.
 */
async function deleteAndRefresh(
  tx: ReadModelTx,
  table: SyncTable,
  live: ReadModelRow[],
  gone: ReadModelRow[],
  order: ReadOrder,
): Promise<number> {
  const dependents = table.dependents ?? [];
  if (gone.length === 0 && (live.length === 0 || dependents.length === 0)) return 0;
  const at = readOrderParameter(order);
  const liveIds = live.map((row) => row.id as number);
  const refreshes = dependents.map((dependent, i) => {
    const columns = sourceColumnList(table, dependent);
    const source = Sql.sql`SELECT ${columns} FROM ${ident(table.name)}
      WHERE id = ANY(${liveIds}::${idArray(table)})
      UNION ALL ${buriedRows(table, dependent, gone)}`;
    return Sql.sql`, ${Sql.raw(`dependent_${i}`)} AS (${dependentStatement(table, dependent, source)})`;
  });
  const [row] = await tx.$queryRaw<{ changed: number }[]>`WITH ${deleteParts(
    table,
    gone.map((r) => r.id as number),
    at,
  )}${Sql.join(refreshes, '')} SELECT count(*)::int AS changed FROM deleted`;
  return row?.changed ?? 0;
}

/** The gone rows as read whose tombstone this statement wrote (`buried`), as a source `s`. */
function buriedRows(table: SyncTable, dependent: DependentColumns, gone: ReadModelRow[]): Sql.Sql {
  const { sourceColumns } = dependentUpdate(table, dependent);
  // Only the source columns the expressions name travel.
  const rows = JSON.stringify(gone, sourceColumns);
  return Sql.sql`SELECT ${sourceColumnList(table, dependent)}
    FROM json_populate_recordset(NULL::${ident(table.name)}, ${rows}::json)
    WHERE id IN (SELECT row_id FROM buried)`;
}

const sourceColumnList = (table: SyncTable, dependent: DependentColumns) =>
  Sql.join(dependentUpdate(table, dependent).sourceColumns.map(ident));

/**
 * The end of a table's first load: every copy of its rows' values in other tables refreshed in
 * one set-based statement per dependent, the table's own read-model rows being the source `s`
 * (its columns have the names the expressions use), instead of one statement per batch
 * (applyFirstLoadBatch); and the copies the table holds of other tables' values, which its COPY
 * took from the legacy join, set to those tables' read-model rows (as upsertStatement does). Runs
 * in the transaction of the batch that catches up, so the table is never marked caught up
 * without it.
 */
export async function refreshDependentsOfTable(tx: ReadModelTx, table: SyncTable): Promise<void> {
  const copies = [
    ...(table.dependents ?? []).map((copy) => ({ source: table, copy })),
    ...copiesHeldBy(table),
  ];
  for (const { source, copy } of copies) {
    const { assignments, stale } = dependentUpdate(source, copy);
    await tx.$executeRaw`UPDATE ${ident(copy.table)} d SET ${assignments}
      FROM ${ident(source.name)} AS s WHERE ${Sql.raw(copy.on)} AND (${stale})`;
  }
}

/** The UPDATE of a dependent's copies from `source`, a subquery of rows of the table's columns. */
function dependentStatement(
  table: SyncTable,
  dependent: DependentColumns,
  source: Sql.Sql,
): Sql.Sql {
  const { assignments, stale } = dependentUpdate(table, dependent);
  return Sql.sql`UPDATE ${ident(dependent.table)} d SET ${assignments}
    FROM (${source}) AS s WHERE ${Sql.raw(dependent.on)} AND (${stale})`;
}

/**
 * applyLegacyRows of rows already mapped, none rejected, as one statement: the read order taken,
 * the upsert, the deletes, the dependents' refresh and the clearing of their rejects, each a
 * CTE. PostgreSQL runs a statement atomically, so a caller outside a sync run needs no
 * transaction (one round trip instead of one per step). The read order is taken by the
 * statement itself: the gateway runs it after its legacy commit, whose rows it applies, so the
 * order is later than the commit (read-order.ts). Its text depends on the table only, so it can
 * be prepared once. Yields one row: `changed`, the rows inserted, changed or deleted.
 * `alongside`, a data-modifying statement of the caller's, runs as one more CTE: in the same
 * statement and trip, and atomically with the rest.
 */
export function applyStatement(
  table: SyncTable,
  rows: { row: ReadModelRow; gone: boolean }[],
  alongside?: Sql.Sql,
): Sql.Sql {
  const live = rows.filter((r) => !r.gone).map((r) => r.row);
  const gone = rows.filter((r) => r.gone).map((r) => r.row);
  const order = Sql.sql`(SELECT read_order FROM stamp)`;
  // The copies follow the rows this statement wrote, as written (a CTE cannot see the table's
  // new state), and the gone rows it buried.
  const dependents = (table.dependents ?? []).map((dependent, i) => {
    const source = Sql.sql`SELECT ${sourceColumnList(table, dependent)} FROM upserted
      UNION ALL ${buriedRows(table, dependent, gone)}`;
    return Sql.sql`, ${Sql.raw(`dependent_${i}`)} AS (${dependentStatement(table, dependent, source)})`;
  });
  return Sql.sql`WITH stamp AS MATERIALIZED (SELECT nextval('sync_read_order') AS read_order),
    upserted AS (${upsertStatement(table, live, order)} RETURNING t.*),
    ${deleteParts(
      table,
      gone.map((r) => r.id as number),
      order,
    )}${Sql.join(dependents, '')},
    cleared AS (${clearRejectsStatement(
      table,
      rows.map((r) => r.row.id as number),
    )})${alongside ? Sql.sql`, alongside AS (${alongside})` : Sql.empty}
    SELECT (SELECT count(*) FROM upserted) + (SELECT count(*) FROM deleted) AS changed`;
}

const dependentUpdates = new WeakMap<DependentColumns, ReturnType<typeof buildDependentUpdate>>();

/** The fixed parts of a dependent's UPDATE, built once per declaration, not once per batch. */
function dependentUpdate(table: SyncTable, dependent: DependentColumns) {
  let update = dependentUpdates.get(dependent);
  if (!update) {
    update = buildDependentUpdate(table, dependent);
    dependentUpdates.set(dependent, update);
  }
  return update;
}

function buildDependentUpdate(table: SyncTable, dependent: DependentColumns) {
  const sourceColumns = [...new Set(['id', ...dependent.reads])];
  for (const column of sourceColumns) {
    if (!table.columns[column])
      throw new Error(
        `${table.name} dependent ${dependent.table} reads unknown column s.${column}`,
      );
  }
  const sets = Object.entries(dependent.columns);
  return {
    sourceColumns,
    assignments: Sql.join(sets.map(([c, expr]) => Sql.sql`${ident(c)} = ${Sql.raw(expr)}`)),
    stale: Sql.join(
      sets.map(([c, expr]) => Sql.sql`d.${ident(c)} IS DISTINCT FROM ${Sql.raw(expr)}`),
      ' OR ',
    ),
  };
}
