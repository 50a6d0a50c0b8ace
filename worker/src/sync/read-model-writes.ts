// Writing synced rows into the read model: idempotent upserts, deletes of gone rows, and the
// refresh of dependent copies. Shared by the incremental sync and the reconciliation.
import { Prisma as Sql } from '../../../prisma/generated/read-model/client.js';
import type { ReadModelClient } from '../../../common/databases.js';
import type {
  ColumnType,
  DependentColumns,
  LegacyRow,
  ReadModelRow,
  SyncTable,
} from './table-definition.js';

export type ReadModelTx = Parameters<Parameters<ReadModelClient['$transaction']>[0]>[0];

// PostgreSQL allows 65535 bind parameters per statement; stay well below.
const MAX_PARAMS_PER_STATEMENT = 30_000;

const PG_TYPES: Record<ColumnType, string> = {
  int: 'integer',
  bigint: 'bigint',
  text: 'text',
  bool: 'boolean',
  decimal: 'numeric',
  date: 'date',
  instant: 'timestamptz',
};

export const ident = (name: string) => Sql.raw(`"${name.replace(/"/g, '""')}"`);
export const columnName = (qualified: string) => qualified.split('.').pop() ?? qualified;

function chunks<T>(items: T[], columns: number): T[][] {
  const size = Math.max(1, Math.floor(MAX_PARAMS_PER_STATEMENT / columns));
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += size) result.push(items.slice(i, i + size));
  return result;
}

/** Legacy rows -> read model: upsert the live ones, delete the gone ones, refresh dependents. */
export async function applyLegacyRows(
  tx: ReadModelTx,
  table: SyncTable,
  rows: LegacyRow[],
): Promise<number> {
  const mapped = rows.map((row) => ({ row: table.map(row), gone: table.isGone?.(row) ?? false }));
  const live = mapped.filter((m) => !m.gone).map((m) => m.row);
  const gone = mapped.filter((m) => m.gone).map((m) => m.row.id as number);
  let changed = await upsertRows(tx, table, live);
  changed += await deleteRows(tx, table, gone);
  await refreshDependents(
    tx,
    table,
    mapped.map((m) => m.row),
  );
  return changed;
}

/** Returns the number of rows actually inserted or changed (identical rows are not rewritten). */
export async function upsertRows(
  tx: ReadModelTx,
  table: SyncTable,
  rows: ReadModelRow[],
): Promise<number> {
  const columns = Object.keys(table.columns);
  const updatable = columns.filter((c) => c !== 'id');
  const columnList = Sql.join(columns.map(ident));
  const assignments = Sql.join(updatable.map((c) => Sql.sql`${ident(c)} = EXCLUDED.${ident(c)}`));
  const current = Sql.join(updatable.map((c) => Sql.sql`t.${ident(c)}`));
  const incoming = Sql.join(updatable.map((c) => Sql.sql`EXCLUDED.${ident(c)}`));
  let changed = 0;
  for (const chunk of chunks(rows, columns.length)) {
    const values = Sql.join(
      chunk.map((row) => Sql.sql`(${Sql.join(columns.map((c) => row[c] ?? null))})`),
    );
    changed +=
      await tx.$executeRaw`INSERT INTO ${ident(table.name)} AS t (${columnList}) VALUES ${values}
      ON CONFLICT (id) DO UPDATE SET ${assignments}
      WHERE (${current}) IS DISTINCT FROM (${incoming})`;
  }
  return changed;
}

export async function deleteRows(
  tx: ReadModelTx,
  table: SyncTable,
  ids: number[],
): Promise<number> {
  if (ids.length === 0) return 0;
  const cast = Sql.raw(`${PG_TYPES[table.columns.id ?? 'int']}[]`);
  return tx.$executeRaw`DELETE FROM ${ident(table.name)} WHERE id = ANY(${ids}::${cast})`;
}

/**
 * Refreshes every copy of these rows' values in other tables. The rows themselves, gone ones
 * included, are the source `s` (a VALUES list), so a rename just before a delete still reaches
 * the copies. Runs for unchanged rows too: a copy written by a concurrent run of the dependent
 * table from an older read is mended on the next look-back pass.
 */
export async function refreshDependents(
  tx: ReadModelTx,
  table: SyncTable,
  rows: ReadModelRow[],
): Promise<void> {
  if (rows.length === 0) return;
  for (const dependent of table.dependents ?? []) {
    const { sourceColumns, alias, assignments, stale } = dependentUpdate(table, dependent);
    for (const chunk of chunks(rows, sourceColumns.length)) {
      const values = Sql.join(
        chunk.map(
          (row) =>
            Sql.sql`(${Sql.join(sourceColumns.map((c) => Sql.sql`${row[c.column] ?? null}::${c.pgType}`))})`,
        ),
      );
      await tx.$executeRaw`UPDATE ${ident(dependent.table)} d SET ${assignments}
        FROM (VALUES ${values}) AS ${alias}
        WHERE ${Sql.raw(dependent.on)} AND (${stale})`;
    }
  }
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
  // Only the source columns the expressions name travel in the VALUES list.
  const expressions = [dependent.on, ...Object.values(dependent.columns)].join(' ');
  const named = [...expressions.matchAll(/\bs\.([a-z_]+)/g)].map((m) => m[1] ?? '');
  const sourceColumns = [...new Set(['id', ...named])].map((column) => {
    const type = table.columns[column];
    if (!type)
      throw new Error(`${table.name} dependent ${dependent.table} uses unknown column s.${column}`);
    return { column, pgType: Sql.raw(PG_TYPES[type]) };
  });
  const sets = Object.entries(dependent.columns);
  return {
    sourceColumns,
    alias: Sql.raw(`s(${sourceColumns.map((c) => `"${c.column}"`).join(', ')})`),
    assignments: Sql.join(sets.map(([c, expr]) => Sql.sql`${ident(c)} = ${Sql.raw(expr)}`)),
    stale: Sql.join(
      sets.map(([c, expr]) => Sql.sql`d.${ident(c)} IS DISTINCT FROM ${Sql.raw(expr)}`),
      ' OR ',
    ),
  };
}
