// Syncing chosen rows now, outside the polling loop: the gateway's member writes use it so the
// read model holds a written row before the answer leaves, mapped by the table's own declaration
// and written by the same statements as every polled batch (one mapping, not two).
import { empty, join, raw, sql, type Sql } from './sql.js';
import { readModelPool, type ReadModelClient } from '#common/databases.js';
import { deleteParts } from './deletes.js';
import { buriedRows, dependentStatement, sourceColumnList } from './dependents.js';
import { clearRejectsStatement } from './rejects.js';
import { foldKeptCounts } from './kept-counts.js';
import { upsertStatement } from './upsert.js';
import { mapLegacyRows } from './rejects.js';
import type { LegacyRow, ReadModelRow, SyncTable } from './table-definition.js';

/** A statement of the caller's to run within the same statement (its text fixed per `name`). */
export interface Alongside {
  name: string;
  statement: Sql;
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
  alongside?: Sql,
): Sql {
  const live = rows.filter((r) => !r.gone).map((r) => r.row);
  const gone = rows.filter((r) => r.gone).map((r) => r.row);
  const order = sql`(SELECT read_order FROM stamp)`;
  // The copies follow the rows this statement wrote, as written (a CTE cannot see the table's
  // new state), and the gone rows it buried.
  const dependents = (table.dependents ?? []).map((dependent, i) => {
    const source = sql`SELECT ${sourceColumnList(table, dependent)} FROM upserted
      UNION ALL ${buriedRows(table, dependent, gone)}`;
    return sql`, ${raw(`dependent_${i}`)} AS (${dependentStatement(table, dependent, source)})`;
  });
  return sql`WITH stamp AS MATERIALIZED (SELECT nextval('sync_read_order') AS read_order),
    upserted AS (${upsertStatement(table, live, order)} RETURNING t.*),
    ${deleteParts(
      table,
      gone.map((r) => r.id as number),
      order,
    )}${join(dependents, '')},
    cleared AS (${clearRejectsStatement(
      table,
      rows.map((r) => r.row.id as number),
    )})${alongside ? sql`, alongside AS (${alongside})` : empty}
    SELECT (SELECT count(*) FROM upserted) + (SELECT count(*) FROM deleted) AS changed`;
}
