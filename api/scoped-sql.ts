// The branch rule for the reads that run as prepared SQL statements on the read model's pg
// pool instead of through Prisma (the hottest ones; docs/decisions/0005-fast-hot-path.md). Like
// ScopedRead, a handler never writes the branch condition: every statement built here carries the
// caller's (api/branch-rule.ts), and only the synced tables can be named.
import type pg from 'pg';
import pLimit from 'p-limit';
import { branchCondition, keptBranchKeys } from './branch-rule.js';
import { ID_BLOCK, type DaySumTable, type KeptTable } from '#read-model/kept-counts.js';
import { empty, ident, join, raw, sql, type PgQueryable, type Sql } from '#read-model/sql.js';
import {
  changesStatement,
  SNAPSHOT_XMIN,
  type ChangesPage,
  type ChangesQuery,
} from './changes/change-statement.js';
import type { DataScope } from './data-scope.js';
import {
  BLOCK_START,
  daySumsStatement,
  keptTotal,
  positionedPage,
  type KeptFilter,
} from './kept-sql.js';
import type { SqlTable } from './sql-table.js';
import { selectionOf, types, type SelectedResource } from './sql-values.js';

export interface SqlQuery {
  table: SqlTable;
  /** Conditions (read-model/sql.ts fragments, their values as parameters), joined with AND. */
  where: Sql[];
}

/**
 * `column = value` for each column given a value (undefined: no condition), for a query's
 * `where`. The columns are the code's own names, never input.
 */
export function equalities(values: Record<string, unknown>): Sql[] {
  const where: Sql[] = [];
  for (const [column, value] of Object.entries(values)) {
    if (value !== undefined) where.push(sql`${raw(column)} = ${value}`);
  }
  return where;
}

export interface SqlSelect<Item> extends SqlQuery {
  resource: SelectedResource<Item>;
}

export interface SqlPage<Item> extends SqlSelect<Item> {
  /** The ORDER BY list, the code's own SQL. */
  orderBy: string;
  window: { skip: number; take: number };
  /**
   * The total is then the kept counts' sum, not a count of the rows; with `orderBy: 'id'`, a
   * deep page starts in the block of ids that holds it.
   */
  kept?: KeptFilter;
}

export interface ScopedSql {
  /** The API objects of the rows matching, in no particular order. */
  rows<Item>(query: SqlSelect<Item>): Promise<Item[]>;
  /**
   * One page of a list and the exact total of the rows matching, in one statement: one
   * snapshot and one round trip (an empty page counts in a second).
   */
  page<Item>(query: SqlPage<Item>): Promise<{ rows: Item[]; total: number }>;
  count(query: SqlQuery): Promise<number>;
  /**
   * The exact number of `table`'s rows the caller sees, of one branch and one status value when
   * given, from the kept counts (read-model/kept-counts.ts): a sum over a few rows.
   */
  keptCount(table: KeptTable, filter: { branchId?: number; status?: string }): Promise<number>;
  /**
   * `table`'s kept day sums (read-model/kept-counts.ts), over the Istanbul days [from, to]
   * (either end open when absent), per kind: rows and amount (exact decimal text).
   */
  daySums(
    table: DaySumTable,
    filter: { branchId?: number; from?: string; to?: string },
  ): Promise<{ kind: string; n: number; amount: string }[]>;
  /** The change feed's keys after a cursor, within the caller's branch (api/changes/change-statement.ts). */
  changes(query: ChangesQuery): Promise<ChangesPage>;
  /** The snapshot xmin of a new statement, for `changes`. */
  snapshotXmin(): Promise<bigint>;
}

/** Distinct statement texts prepared on each connection at most. */
const MAX_PREPARED = 200;

/**
 * `on`: the connection to read on, by default the pool (or one of its connections: a
 * transaction's reads); statement names are this instance's, the same on every connection.
 */
export function createScopedSql(pool: pg.Pool): (scope: DataScope, on?: PgQueryable) => ScopedSql {
  const nameOf = preparedNames();
  return (scope, on = pool) => scopedSql(scope, statementRunner(pool, on, nameOf));
}

/**
 * One prepared statement per distinct text: the texts come from code, so they are few. The
 * feed's vary with the types asked for and the cursor's place; past the first few hundred
 * texts a statement runs unnamed, so no connection holds statements without bound.
 */
function preparedNames(): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (!name && names.size < MAX_PREPARED) names.set(text, (name = `gateway_${names.size + 1}`));
    return name;
  };
}

interface StatementRunner {
  /** Rows as objects keyed by column. */
  rows(statement: Sql): Promise<Record<string, unknown>[]>;
  /** Rows as arrays of values, in the select list's order (no object per row from pg). */
  values(statement: Sql): Promise<unknown[][]>;
}

function statementRunner(
  pool: pg.Pool,
  on: PgQueryable,
  nameOf: (text: string) => string | undefined,
): StatementRunner {
  // One connection (a transaction's) runs one statement at a time: pg would queue overlapping
  // calls itself, but warns that pg 9 refuses them; the pool runs them side by side.
  const inTurn: <T>(query: () => Promise<T>) => Promise<T> =
    on === pool ? (query) => query() : pLimit(1);
  return {
    async rows({ text, values }) {
      return (await inTurn(() => on.query({ name: nameOf(text), text, values, types })))
        .rows as Record<string, unknown>[];
    },
    async values({ text, values }) {
      return (
        await inTurn(() => on.query({ name: nameOf(text), text, values, types, rowMode: 'array' }))
      ).rows as unknown[][];
    },
  };
}

/** The query's FROM and WHERE, the caller's branch condition last. */
export function filtered(scope: DataScope, query: SqlQuery): Sql {
  const branch = scope.kind === 'branch' ? branchCondition(query.table, scope.branchId) : null;
  const where = branch ? [...query.where, branch] : query.where;
  const clause = where.length ? join(where, ') AND (', ' WHERE (', ')') : empty;
  return sql`FROM ${ident(query.table)}${clause}`;
}

/** The kept branch keys of `kept`, as the rows the caller reads are keyed. */
const keysOf = (scope: DataScope, kept: KeptFilter) =>
  keptBranchKeys(scope, kept.table, kept.branchId);

/** A page's statement, with its total as the last value of every row. */
export function pageStatement(scope: DataScope, query: SqlPage<unknown>): Sql {
  const { kept, window } = query;
  const { list } = selectionOf(query.resource);
  if (kept && query.orderBy === 'id' && window.skip >= ID_BLOCK) {
    const page = { table: query.table, list, ...window };
    const from = filtered(scope, { ...query, where: [...query.where, sql`id >= ${BLOCK_START}`] });
    return positionedPage(page, kept, keysOf(scope, kept), from);
  }
  const from = filtered(scope, query);
  const total = kept ? keptTotal(kept, keysOf(scope, kept)) : sql`SELECT count(*) ${from}`;
  const order = raw(` ORDER BY ${query.orderBy}`);
  const limit = sql` LIMIT ${window.take} OFFSET ${window.skip}`;
  // Past the first page the rows skipped are walked as index entries only, and only the
  // page's rows are read whole: page 2,000 of 50 skips 99,950 entries, not 99,950 rows.
  const rows =
    window.skip > 0
      ? sql`FROM ${ident(query.table)} WHERE id IN (SELECT id ${from}${order}${limit})${order}`
      : sql`${from}${order}${limit}`;
  return sql`SELECT ${list}, (${total}) AS total ${rows}`;
}

function scopedSql(scope: DataScope, run: StatementRunner): ScopedSql {
  const keptCount = async (kept: KeptFilter) => {
    const keys = keysOf(scope, kept);
    if (keys?.length === 0) return 0;
    const [row] = await run.rows(keptTotal(kept, keys));
    return Number(row?.n ?? 0);
  };
  const count = async (query: SqlQuery) => {
    const [row] = await run.rows(sql`SELECT count(*) AS n ${filtered(scope, query)}`);
    return Number(row?.n ?? 0);
  };
  return {
    async rows<Item>(query: SqlSelect<Item>) {
      const { list, objectOf } = selectionOf(query.resource);
      const values = await run.values(sql`SELECT ${list} ${filtered(scope, query)}`);
      return values.map(objectOf) as Item[];
    },
    async page<Item>(query: SqlPage<Item>) {
      if (query.kept && keysOf(scope, query.kept)?.length === 0) return { rows: [], total: 0 };
      const values = await run.values(pageStatement(scope, query));
      const { count: columns, objectOf } = selectionOf(query.resource);
      // An empty page has no row to carry the total: it is counted on its own.
      if (values.length === 0) {
        return { rows: [], total: await (query.kept ? keptCount(query.kept) : count(query)) };
      }
      return { rows: values.map(objectOf) as Item[], total: Number(values[0]![columns]) };
    },
    count,
    keptCount: (table, filter) => keptCount({ table, ...filter }),
    async daySums(table, filter) {
      const keys = keptBranchKeys(scope, table, filter.branchId);
      if (keys?.length === 0) return [];
      const rows = await run.rows(daySumsStatement(table, keys, filter));
      return rows.map((r) => ({
        kind: r.kind as string,
        n: Number(r.n),
        amount: r.amount as string,
      }));
    },
    async changes(query) {
      return changesPageOf(await run.rows(changesStatement(scope, query)));
    },
    async snapshotXmin() {
      const [row] = await run.rows(SNAPSHOT_XMIN);
      return BigInt(row!.xmin as string);
    },
  };
}

/** The feed statement's rows: its snapshot's xmin and purge horizon on each, a key per change. */
function changesPageOf(rows: Record<string, unknown>[]): ChangesPage {
  return {
    xmin: BigInt(rows[0]!.snapshot_xmin as string),
    horizon: BigInt(rows[0]!.horizon as string),
    rows: rows
      .filter((row) => row.xid !== null)
      .map((row) => ({
        xid: BigInt(row.xid as string),
        kind: row.kind === 0 ? 0 : 1,
        type: row.type as string,
        id: Number(row.id),
        branch_id: row.branch_id === null ? null : Number(row.branch_id),
        changed_at: row.changed_at as string,
      })),
  };
}
