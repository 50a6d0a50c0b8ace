// The branch rule for the reads that run as prepared SQL statements on the read model's pg
// pool instead of through Prisma (the hottest ones; docs/decisions/0005-fast-hot-path.md). Like
// ScopedRead, a handler never writes the branch condition: every statement built here carries the
// caller's (api/branch-rule.ts), and only the synced tables can be named.
import pg from 'pg';
import type { z } from 'zod';
import { branchCondition, keptBranchKeys, requestedBranch } from './branch-rule.js';
import { ID_BLOCK, type KeptTable } from '../read-model/kept-counts.js';
import {
  changesStatement,
  SNAPSHOT_XMIN,
  type ChangesPage,
  type ChangesQuery,
} from './changes/change-statement.js';
import type { DataScope } from './data-scope.js';
import type { SqlTable } from './sql-table.js';

export interface SqlQuery {
  table: SqlTable;
  /** Conditions, each a SQL fragment over `$1..$n` of `params`; joined with AND. */
  where: string[];
  params: unknown[];
}

/**
 * A resource as a statement selects it (api/resource.ts): its fields, in order, are the read
 * model's columns, and a row of them is the API object its schema describes (the type parsers
 * below give the API's values).
 */
export interface SelectedResource<Item> {
  select: Record<string, true>;
  schema: z.ZodType<Item>;
}

export interface SqlSelect<Item> extends SqlQuery {
  resource: SelectedResource<Item>;
}

/** The kept counts matching a page's `where` exactly (read-model/kept-counts.ts). */
export interface KeptFilter {
  table: KeptTable;
  branchId?: number;
  status?: string;
}

export interface SqlPage<Item> extends SqlSelect<Item> {
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
   * The kept day sums (read-model/kept-counts.ts) of the kinds starting with `kindPrefix`, over
   * the Istanbul days [from, to] (either end open when absent), per kind: rows and amount (exact
   * decimal text).
   */
  daySums(
    kindPrefix: string,
    filter: { branchId?: number; from?: string; to?: string },
  ): Promise<{ kind: string; n: number; amount: string }[]>;
  /** The change feed's keys after a cursor, within the caller's branch (api/changes/change-statement.ts). */
  changes(query: ChangesQuery): Promise<ChangesPage>;
  /** The snapshot xmin of a new statement, for `changes`. */
  snapshotXmin(): Promise<bigint>;
}

// Values as the API wants them, as Prisma's mapper would give them to Resource.toApi: numeric as
// a number, a calendar day as its YYYY-MM-DD text (never a local-midnight Date), bigint count as
// a number, an instant as its ISO text (what Date#toISOString gives: milliseconds, `Z`).
const NUMERIC = 1700;
const DATE = 1082;
const INT8 = 20;
const TIMESTAMPTZ = 1184;
const asNumber = (value: string) => Number(value);
const asText = (value: string) => value;
const parseTimestamp = pg.types.getTypeParser(TIMESTAMPTZ) as (value: string) => Date;

/**
 * PostgreSQL's UTC text (`2026-11-25 09:30:00.5+00`, a session in UTC) rewritten as the ISO
 * instant without building a Date: parsing and formatting Dates took 4 ms of a change-feed page of
 * 1,000 members. Any other form (another offset, five-digit or BC years, infinity) goes the Date way.
 */
export function isoInstant(value: string): string {
  if (value.length < 22 || value[10] !== ' ' || value[19] === ':' || !value.endsWith('+00')) {
    return parseTimestamp(value).toISOString();
  }
  const fraction = value.slice(20, -3); // after the '.', if any: '' or up to six digits
  const millis = value[19] === '.' ? `${fraction}00`.slice(0, 3) : '000';
  return `${value.slice(0, 10)}T${value.slice(11, 19)}.${millis}Z`;
}

const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown => {
    if (oid === NUMERIC || oid === INT8) return asNumber;
    if (oid === DATE) return asText;
    if (oid === TIMESTAMPTZ) return isoInstant;
    return pg.types.getTypeParser(oid, format) as unknown;
  }) as pg.CustomTypesConfig['getTypeParser'],
};

interface Selection {
  /** The select list, quoted once: quoting it on every request was 2 % of a detail's garbage. */
  list: string;
  count: number;
  /** The API object of a row's values, in the select list's order. */
  objectOf: (values: unknown[]) => unknown;
}

const COLUMN_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * A resource's select list, and a function building its API object from a row's values as one
 * object literal, compiled once per resource: V8 then makes each row in one step with its final
 * shape. Rows as pg's objects copied field by field into the API's, and the total in a statement
 * of its own, cost a page of 50 members 13 % more gateway CPU
 * (docs/decisions/0014-kept-counts.md). The names are the resources' own constants, checked here
 * before they become code.
 */
function compileSelection(resource: SelectedResource<unknown>): Selection {
  const columns = Object.keys(resource.select);
  for (const column of columns) {
    // `__proto__` in a literal would set the prototype, not a field.
    if (!COLUMN_NAME.test(column) || column === '__proto__') {
      throw new Error(`not a column name: ${column}`);
    }
  }
  const literal = columns.map((column, i) => `${column}: values[${i}]`).join(', ');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- see above: fixed names only
  const objectOf = new Function('values', `return { ${literal} };`) as Selection['objectOf'];
  const list = columns.map((column) => pg.escapeIdentifier(column)).join(', ');
  return { list, count: columns.length, objectOf };
}

const selections = new WeakMap<SelectedResource<unknown>, Selection>();
function selectionOf(resource: SelectedResource<unknown>): Selection {
  let selection = selections.get(resource);
  if (selection === undefined) {
    selection = compileSelection(resource);
    selections.set(resource, selection);
  }
  return selection;
}

/** Distinct statement texts prepared on each connection at most. */
const MAX_PREPARED = 200;

/** A pool, or one of its connections (a transaction's reads). */
export type Queryable = Pick<pg.Pool, 'query'>;

/**
 * `on`: the connection to read on, by default the pool; statement names are this instance's,
 * the same on every connection.
 */
export function createScopedSql(pool: pg.Pool): (scope: DataScope, on?: Queryable) => ScopedSql {
  // One prepared statement per distinct text: the texts come from code, so they are few. The
  // feed's vary with the types asked for and the cursor's place; past the first few hundred
  // texts a statement runs unnamed, so no connection holds statements without bound.
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (!name && names.size < MAX_PREPARED) names.set(text, (name = `gateway_${names.size + 1}`));
    return name;
  };
  return (scope: DataScope, on: Queryable = pool): ScopedSql => {
    const run = async (text: string, values: unknown[]) =>
      (await on.query({ name: nameOf(text), text, values, types })).rows as Record<
        string,
        unknown
      >[];
    /** Rows as arrays of values, in the select list's order (no object per row from pg). */
    const runValues = async (text: string, values: unknown[]) =>
      (await on.query({ name: nameOf(text), text, values, types, rowMode: 'array' }))
        .rows as unknown[][];
    /**
     * The branch a kept figure is read for: the bound client's, or the one asked for (undefined:
     * every branch). null when a bound client names another branch (403 before this; nothing
     * if it did).
     */
    const keptBranch = (asked: number | undefined): number | undefined | null => {
      const branch = requestedBranch(scope, asked);
      return branch === 'refused' ? null : branch;
    };
    const filtered = (query: SqlQuery) => {
      const where = [...query.where];
      const params = [...query.params];
      if (scope.kind === 'branch') {
        const condition = branchCondition(query.table, `$${params.length + 1}`);
        if (condition) {
          params.push(scope.branchId);
          where.push(condition);
        }
      }
      const clause = where.length ? ` WHERE ${where.map((w) => `(${w})`).join(' AND ')}` : '';
      return { from: `FROM ${pg.escapeIdentifier(query.table)}${clause}`, params };
    };
    /** `kept`'s rows in kept_counts or kept_totals, as conditions over `params` (pushed). */
    const keptWhere = (kept: KeptFilter, branch: number | undefined, params: unknown[]) => {
      const where = [`table_name = $${params.push(kept.table)}`];
      if (branch !== undefined) {
        where.push(`branch_key = ANY($${params.push(keptBranchKeys(kept.table, branch))}::int[])`);
      }
      if (kept.status !== undefined) where.push(`status = $${params.push(kept.status)}`);
      return where.join(' AND ');
    };
    /** The statement of `kept`'s total, over `params` (pushed onto it). */
    const keptTotal = (kept: KeptFilter, branch: number | undefined, params: unknown[]) =>
      `SELECT coalesce(sum(n), 0) AS n FROM kept_totals WHERE ${keptWhere(kept, branch, params)}`;
    /**
     * A deep page in id order, from the kept counts per block of ids: the blocks before the page
     * are summed (a few rows each), and only the rest of the skip, within one block, is walked.
     * The total is the sum of every block.
     */
    const positionedPage = (
      query: SqlPage<unknown>,
      kept: KeptFilter,
      branch: number | undefined,
    ) => {
      const start = `(SELECT id_block * ${ID_BLOCK} FROM start)`;
      const { from, params } = filtered({ ...query, where: [...query.where, `id >= ${start}`] });
      const blocks = keptWhere(kept, branch, params);
      const skip = `$${params.push(query.window.skip)}::bigint`;
      const take = `$${params.push(query.window.take)}`;
      const { list } = selectionOf(query.resource);
      return runValues(
        `WITH blocks AS (
           SELECT id_block, sum(n) AS n FROM kept_counts WHERE ${blocks}
           GROUP BY id_block HAVING sum(n) <> 0
         ), placed AS (
           SELECT id_block, (sum(n) OVER (ORDER BY id_block) - n)::bigint AS before FROM blocks
         ), start AS (
           SELECT id_block, before FROM placed WHERE before <= ${skip}
           ORDER BY id_block DESC LIMIT 1
         )
         SELECT ${list}, (SELECT coalesce(sum(n), 0) FROM blocks) AS total
         FROM ${pg.escapeIdentifier(query.table)} WHERE id IN (
           SELECT id ${from} ORDER BY id LIMIT ${take} OFFSET ${skip} - (SELECT before FROM start)
         ) ORDER BY id`,
        params,
      );
    };
    /** A page with its total as the last value of every row. */
    const pageValues = (query: SqlPage<unknown>, branch: number | undefined) => {
      const { kept, window } = query;
      if (kept && query.orderBy === 'id' && window.skip >= ID_BLOCK) {
        return positionedPage(query, kept, branch);
      }
      const { from, params } = filtered(query);
      const total = kept ? keptTotal(kept, branch, params) : `SELECT count(*) ${from}`;
      const { list } = selectionOf(query.resource);
      const order = ` ORDER BY ${query.orderBy}`;
      const limit = ` LIMIT $${params.push(window.take)} OFFSET $${params.push(window.skip)}`;
      // Past the first page the rows skipped are walked as index entries only, and only the
      // page's rows are read whole: page 2,000 of 50 skips 99,950 entries, not 99,950 rows.
      const rows =
        window.skip > 0
          ? `FROM ${pg.escapeIdentifier(query.table)} WHERE id IN (SELECT id ${from}${order}${limit})${order}`
          : `${from}${order}${limit}`;
      return runValues(`SELECT ${list}, (${total}) AS total ${rows}`, params);
    };
    const keptCount = async (kept: KeptFilter) => {
      const branch = keptBranch(kept.branchId);
      if (branch === null) return 0;
      const params: unknown[] = [];
      const [row] = await run(keptTotal(kept, branch, params), params);
      return Number(row?.n ?? 0);
    };
    const count = async (query: SqlQuery) => {
      const { from, params } = filtered(query);
      const [row] = await run(`SELECT count(*) AS n ${from}`, params);
      return Number(row?.n ?? 0);
    };
    return {
      async rows<Item>(query: SqlSelect<Item>) {
        const { from, params } = filtered(query);
        const { list, objectOf } = selectionOf(query.resource);
        const values = await runValues(`SELECT ${list} ${from}`, params);
        return values.map(objectOf) as Item[];
      },
      async page<Item>(query: SqlPage<Item>) {
        const branch = query.kept ? keptBranch(query.kept.branchId) : undefined;
        if (branch === null) return { rows: [], total: 0 };
        const values = await pageValues(query, branch);
        const { count: columns, objectOf } = selectionOf(query.resource);
        // An empty page has no row to carry the total: it is counted on its own.
        if (values.length === 0) {
          return { rows: [], total: await (query.kept ? keptCount(query.kept) : count(query)) };
        }
        return { rows: values.map(objectOf) as Item[], total: Number(values[0]![columns]) };
      },
      count,
      keptCount: (table, filter) => keptCount({ table, ...filter }),
      async daySums(kindPrefix, filter) {
        const params: unknown[] = [`${kindPrefix}%`];
        const where = ['kind LIKE $1'];
        const branch = keptBranch(filter.branchId);
        if (branch === null) return [];
        if (branch !== undefined) where.push(`branch_key = $${params.push(branch)}`);
        if (filter.from) where.push(`day >= $${params.push(filter.from)}::date`);
        if (filter.to) where.push(`day <= $${params.push(filter.to)}::date`);
        const rows = await run(
          `SELECT kind, sum(n) AS n, sum(amount)::text AS amount FROM kept_day_sums
           WHERE ${where.join(' AND ')} GROUP BY kind`,
          params,
        );
        return rows.map((r) => ({
          kind: r.kind as string,
          n: Number(r.n),
          amount: r.amount as string,
        }));
      },
      async changes(query) {
        const { text, values } = changesStatement(scope, query);
        const rows = await run(text, values);
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
      },
      async snapshotXmin() {
        const [row] = await run(SNAPSHOT_XMIN, []);
        return BigInt(row!.xmin as string);
      },
    };
  };
}
