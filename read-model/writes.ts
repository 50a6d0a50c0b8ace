// Writing synced rows into the read model: idempotent upserts, deletes of gone rows, and the
// refresh of dependent copies. Shared by the incremental sync and the reconciliation.
import { Prisma as Sql } from '../prisma/generated/read-model/client.js';
import { CopyBuffer, copyStatement } from './copy-rows.js';
import { legacyRowObjects, rowView, type LegacyBatch } from './legacy-rows.js';
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
 * Legacy rows -> read model: upsert the live ones, delete the gone ones, refresh dependents. A
 * row that cannot be mapped or stored is set aside in sync_rejects (rejects.ts) and the others
 * are written: one bad legacy row never stops its table. Returns the rows changed.
 */
export async function applyLegacyRows(
  tx: ReadModelTx,
  table: SyncTable,
  rows: LegacyRow[],
  onRejected?: RejectListener,
): Promise<number> {
  const { mapped, rejected } = mapLegacyRows(table, rows);
  const live = mapped.filter((m) => !m.gone).map((m) => m.row);
  const gone = mapped.filter((m) => m.gone).map((m) => m.row.id as number);
  const upserted = await upsertIsolatingFailures(tx, table, live);
  rejected.push(...upserted.failed);
  const changed = upserted.changed + (await deleteRows(tx, table, gone));
  const failedIds = new Set(upserted.failed.map((f) => f.id));
  const stored = mapped.map((m) => m.row).filter((row) => !failedIds.has(row.id as number));
  await refreshDependents(tx, table, stored);
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
}

/**
 * Maps a first-load batch: each row read through a view over its values and dropped at once, the
 * live ones appended to the COPY bytes (copy-rows.ts), the gone ones kept for their delete. A row
 * that cannot be mapped is set aside, as in applyLegacyRows.
 */
export function mapFirstLoadBatch(
  table: SyncTable,
  batch: LegacyBatch,
  { inKeyOrder }: { inKeyOrder: boolean },
): FirstLoadBatch {
  const keyIndex = batch.columns.indexOf(columnName(table.key));
  const view = rowView(batch.columns);
  const mapped: FirstLoadBatch = {
    legacy: batch,
    copy: new CopyBuffer(table),
    gone: [],
    rejected: [],
    storedIds: [],
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
 * batch takes applyLegacyRows' path instead.
 */
export async function applyFirstLoadBatch(
  tx: ReadModelTx,
  table: SyncTable,
  batch: FirstLoadBatch,
  onRejected?: RejectListener,
): Promise<number> {
  const copied = await copyNewRows(tx, table, batch.copy);
  if (copied === null)
    return applyLegacyRows(tx, table, legacyRowObjects(batch.legacy), onRejected);
  const goneIds = batch.gone.map((row) => row.id as number);
  const changed = copied + (await deleteRows(tx, table, goneIds));
  await refreshDependents(tx, table, batch.gone);
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
    const statement = copyStatement(table);
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
 */
async function upsertIsolatingFailures(tx: ReadModelTx, table: SyncTable, rows: ReadModelRow[]) {
  const failed: RejectedRow[] = [];
  if (rows.length === 0) return { changed: 0, failed };
  try {
    await tx.$executeRaw`SAVEPOINT upsert_batch`;
    const changed = await upsertRows(tx, table, rows);
    await tx.$executeRaw`RELEASE SAVEPOINT upsert_batch`;
    return { changed, failed };
  } catch {
    await tx.$executeRaw`ROLLBACK TO SAVEPOINT upsert_batch`;
  }
  let changed = 0;
  for (const row of rows) {
    try {
      await tx.$executeRaw`SAVEPOINT upsert_row`;
      changed += await upsertRows(tx, table, [row]);
      await tx.$executeRaw`RELEASE SAVEPOINT upsert_row`;
    } catch (error) {
      await tx.$executeRaw`ROLLBACK TO SAVEPOINT upsert_row`;
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
 * Returns the number of rows actually inserted or changed (identical rows are not rewritten).
 * The rows travel as one JSON parameter that PostgreSQL turns into rows of the table's own type
 * (json_populate_recordset): JSON.stringify is native and the server parses the text in one
 * pass, where one array per column cost a conversion of every value in the driver and the ORM
 * (docs/decisions/0002-sync-by-polling-with-look-back.md, backfill).
 */
export async function upsertRows(
  tx: ReadModelTx,
  table: SyncTable,
  rows: ReadModelRow[],
): Promise<number> {
  if (rows.length === 0) return 0;
  return tx.$executeRaw`${upsertStatement(table, rows)}`;
}

/** The upsert of upsertRows, as SQL (an empty `rows` inserts nothing). */
function upsertStatement(table: SyncTable, rows: ReadModelRow[]): Sql.Sql {
  const { columnList, assignments, current, incoming } = upsertParts(table);
  return Sql.sql`INSERT INTO ${ident(table.name)} AS t (${columnList})
    SELECT ${columnList} FROM json_populate_recordset(NULL::${ident(table.name)}, ${JSON.stringify(rows)}::json)
    ON CONFLICT (id) DO UPDATE SET ${assignments}
    WHERE (${current}) IS DISTINCT FROM (${incoming})`;
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
  return {
    columnList: Sql.join(columns.map(ident)),
    assignments: Sql.join(updatable.map((c) => Sql.sql`${ident(c)} = EXCLUDED.${ident(c)}`)),
    current: Sql.join(updatable.map((c) => Sql.sql`t.${ident(c)}`)),
    incoming: Sql.join(updatable.map((c) => Sql.sql`EXCLUDED.${ident(c)}`)),
  };
}

export async function deleteRows(
  tx: ReadModelTx,
  table: SyncTable,
  ids: number[],
): Promise<number> {
  if (ids.length === 0) return 0;
  return tx.$executeRaw`${deleteStatement(table, ids)}`;
}

function deleteStatement(table: SyncTable, ids: number[]): Sql.Sql {
  const cast = Sql.raw(`${PG_TYPES[table.columns.id ?? 'int']}[]`);
  return Sql.sql`DELETE FROM ${ident(table.name)} WHERE id = ANY(${ids}::${cast})`;
}

/**
 * Refreshes every copy of these rows' values in other tables. The rows themselves, gone ones
 * included, are the source `s` (rows of the table's type, as in upsertRows), so a rename just
 * before a delete still reaches the copies. Runs for unchanged rows too: a copy written by a
 * concurrent run of the dependent table from an older read is mended on the next look-back pass.
 */
export async function refreshDependents(
  tx: ReadModelTx,
  table: SyncTable,
  rows: ReadModelRow[],
): Promise<void> {
  if (rows.length === 0) return;
  for (const dependent of table.dependents ?? []) {
    await tx.$executeRaw`${dependentStatement(table, dependent, rows)}`;
  }
}

/**
 * The end of a table's first load: every copy of its rows' values in other tables refreshed in
 * one set-based statement per dependent, the table's own read-model rows being the source `s`
 * (its columns have the names the expressions use), instead of one statement per batch
 * (applyFirstLoadBatch). Runs in the transaction of the batch that catches up, so the table is
 * never marked caught up without it.
 */
export async function refreshDependentsOfTable(tx: ReadModelTx, table: SyncTable): Promise<void> {
  for (const dependent of table.dependents ?? []) {
    const { assignments, stale } = dependentUpdate(table, dependent);
    await tx.$executeRaw`UPDATE ${ident(dependent.table)} d SET ${assignments}
      FROM ${ident(table.name)} AS s WHERE ${Sql.raw(dependent.on)} AND (${stale})`;
  }
}

function dependentStatement(
  table: SyncTable,
  dependent: DependentColumns,
  rows: ReadModelRow[],
): Sql.Sql {
  const { sourceColumns, assignments, stale } = dependentUpdate(table, dependent);
  // Only the source columns the expressions name travel.
  const source = JSON.stringify(rows, sourceColumns);
  return Sql.sql`UPDATE ${ident(dependent.table)} d SET ${assignments}
    FROM json_populate_recordset(NULL::${ident(table.name)}, ${source}::json) AS s
    WHERE ${Sql.raw(dependent.on)} AND (${stale})`;
}

/**
 * applyLegacyRows of rows already mapped, none rejected, as one statement: the upsert, the
 * deletes, the dependents' refresh and the clearing of their rejects, each a data-modifying CTE.
 * PostgreSQL runs a statement atomically, so a caller outside a sync run needs no transaction
 * (one round trip instead of one per step). Its text depends on the table only, so it can be
 * prepared once. Yields one row: `changed`, the rows inserted, changed or deleted. `alongside`, a
 * data-modifying statement of the caller's, runs as one more CTE: in the same statement and
 * trip, and atomically with the rest.
 */
export function applyStatement(
  table: SyncTable,
  rows: { row: ReadModelRow; gone: boolean }[],
  alongside?: Sql.Sql,
): Sql.Sql {
  const live = rows.filter((r) => !r.gone).map((r) => r.row);
  const gone = rows.filter((r) => r.gone).map((r) => r.row.id as number);
  const all = rows.map((r) => r.row);
  const dependents = (table.dependents ?? []).map(
    (dependent, i) =>
      Sql.sql`, ${Sql.raw(`dependent_${i}`)} AS (${dependentStatement(table, dependent, all)})`,
  );
  return Sql.sql`WITH upserted AS (${upsertStatement(table, live)} RETURNING 1),
    deleted AS (${deleteStatement(table, gone)} RETURNING 1)${Sql.join(dependents, '')},
    cleared AS (${clearRejectsStatement(
      table,
      all.map((row) => row.id as number),
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
  const expressions = [dependent.on, ...Object.values(dependent.columns)].join(' ');
  const named = [...expressions.matchAll(/\bs\.([a-z_]+)/g)].map((m) => m[1] ?? '');
  const sourceColumns = [...new Set(['id', ...named])];
  for (const column of sourceColumns) {
    if (!table.columns[column])
      throw new Error(`${table.name} dependent ${dependent.table} uses unknown column s.${column}`);
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
