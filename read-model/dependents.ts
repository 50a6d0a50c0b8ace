// The copies of a table's values held by other read-model tables (members.branch_name from
// branches), as the declarations list them (DependentColumns): the statements that refresh them
// from a source's rows.
import { ident, join, raw, sql, type Sql } from './sql.js';
import type { DependentColumns, ReadModelRow, SyncTable } from './table-definition.js';
import { SYNC_TABLES } from './tables/index.js';
import { type ReadModelTx } from './transaction.js';

/** The copies of other tables' values held in `table`: each source with its declaration. */
export function copiesHeldBy(table: SyncTable): { source: SyncTable; copy: DependentColumns }[] {
  return SYNC_TABLES.flatMap((source) =>
    (source.dependents ?? [])
      .filter((copy) => copy.table === table.name)
      .map((copy) => ({ source, copy })),
  );
}

/** The gone rows as read whose tombstone this statement wrote (`buried`), as a source `s`. */
export function buriedRows(
  table: SyncTable,
  dependent: DependentColumns,
  gone: ReadModelRow[],
): Sql {
  const { sourceColumns } = dependentUpdate(table, dependent);
  // Only the source columns the expressions name travel.
  const rows = JSON.stringify(gone, sourceColumns);
  return sql`SELECT ${sourceColumnList(table, dependent)}
    FROM json_populate_recordset(NULL::${ident(table.name)}, ${rows}::json)
    WHERE id IN (SELECT row_id FROM buried)`;
}

export const sourceColumnList = (table: SyncTable, dependent: DependentColumns) =>
  join(dependentUpdate(table, dependent).sourceColumns.map(ident));

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
      FROM ${ident(source.name)} AS s WHERE ${raw(copy.on)} AND (${stale})`;
  }
}

/** The UPDATE of a dependent's copies from `source`, a subquery of rows of the table's columns. */
export function dependentStatement(
  table: SyncTable,
  dependent: DependentColumns,
  source: Sql,
): Sql {
  const { assignments, stale } = dependentUpdate(table, dependent);
  return sql`UPDATE ${ident(dependent.table)} d SET ${assignments}
    FROM (${source}) AS s WHERE ${raw(dependent.on)} AND (${stale})`;
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
    assignments: join(sets.map(([c, expr]) => sql`${ident(c)} = ${raw(expr)}`)),
    stale: join(
      sets.map(([c, expr]) => sql`d.${ident(c)} IS DISTINCT FROM ${raw(expr)}`),
      ' OR ',
    ),
  };
}
