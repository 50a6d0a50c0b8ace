// The branch rule for the reads that run as prepared SQL statements on the read model's pg
// pool instead of through Prisma (the hottest ones; docs/decisions/0005-fast-hot-path.md). Like
// ScopedRead, a handler never writes the branch condition: every statement built here carries the
// caller's (api/branch-sql.ts), and only the synced tables can be named.
import pg from 'pg';
import { branchCondition, keptBranchKeys } from './branch-sql.js';
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

export interface SqlSelect extends SqlQuery {
  columns: readonly string[];
  orderBy?: string;
  window?: { skip: number; take: number };
  /**
   * The kept counts matching `where` exactly (read-model/kept-counts.ts): with `orderBy: 'id'`,
   * a deep page then starts in the block of ids that holds it.
   */
  kept?: { table: KeptTable; branchId?: number; status?: string };
}

export interface ScopedSql {
  rows(query: SqlSelect): Promise<Record<string, unknown>[]>;
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

// A select list, quoted once per list: the lists are the resources' own constants, and quoting
// every column again on every request was 2 % of what a member detail read allocates.
const columnLists = new WeakMap<readonly string[], string>();
function columnList(columns: readonly string[]): string {
  let list = columnLists.get(columns);
  if (list === undefined) {
    list = columns.map((column) => pg.escapeIdentifier(column)).join(', ');
    columnLists.set(columns, list);
  }
  return list;
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
    /**
     * The branch a kept figure is read for: the bound client's, or the one asked for (undefined:
     * every branch). null when a bound client names another branch (403 before this; nothing
     * if it did).
     */
    const keptBranch = (asked: number | undefined): number | undefined | null => {
      const bound = scope.kind === 'branch' ? scope.branchId : undefined;
      if (bound !== undefined && asked !== undefined && asked !== bound) return null;
      return bound ?? asked;
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
    /**
     * A deep page in id order, from the kept counts per block of ids: the blocks before the page
     * are summed (a few rows each), and only the rest of the skip, within one block, is walked.
     * One statement, so the counts and the rows are of one snapshot and the page is exact.
     */
    const positionedPage = (
      query: SqlSelect,
      kept: NonNullable<SqlSelect['kept']>,
      window: { skip: number; take: number },
    ) => {
      const branch = keptBranch(kept.branchId);
      if (branch === null) return Promise.resolve([]);
      const start = `(SELECT id_block * ${ID_BLOCK} FROM start)`;
      const { from, params } = filtered({ ...query, where: [...query.where, `id >= ${start}`] });
      const keptWhere = [`table_name = $${params.push(kept.table)}`];
      if (branch !== undefined) {
        keptWhere.push(
          `branch_key = ANY($${params.push(keptBranchKeys(kept.table, branch))}::int[])`,
        );
      }
      if (kept.status !== undefined) keptWhere.push(`status = $${params.push(kept.status)}`);
      const skip = `$${params.push(window.skip)}::bigint`;
      const take = `$${params.push(window.take)}`;
      const columns = columnList(query.columns);
      return run(
        `WITH blocks AS (
           SELECT id_block, sum(n) AS n FROM kept_counts WHERE ${keptWhere.join(' AND ')}
           GROUP BY id_block HAVING sum(n) <> 0
         ), placed AS (
           SELECT id_block, (sum(n) OVER (ORDER BY id_block) - n)::bigint AS before FROM blocks
         ), start AS (
           SELECT id_block, before FROM placed WHERE before <= ${skip}
           ORDER BY id_block DESC LIMIT 1
         )
         SELECT ${columns} FROM ${pg.escapeIdentifier(query.table)} WHERE id IN (
           SELECT id ${from} ORDER BY id LIMIT ${take} OFFSET ${skip} - (SELECT before FROM start)
         ) ORDER BY id`,
        params,
      );
    };
    return {
      rows(query) {
        if (query.kept && query.orderBy === 'id' && query.window && query.window.skip >= ID_BLOCK) {
          return positionedPage(query, query.kept, query.window);
        }
        const { from, params } = filtered(query);
        const columns = columnList(query.columns);
        const order = query.orderBy ? ` ORDER BY ${query.orderBy}` : '';
        if (!query.window) return run(`SELECT ${columns} ${from}${order}`, params);
        params.push(query.window.take, query.window.skip);
        const limit = ` LIMIT $${params.length - 1} OFFSET $${params.length}`;
        // Past the first page the rows skipped are walked as index entries only, and only the
        // page's rows are read whole: page 2,000 of 50 skips 99,950 entries, not 99,950 rows.
        if (query.window.skip > 0) {
          return run(
            `SELECT ${columns} FROM ${pg.escapeIdentifier(query.table)}
             WHERE id IN (SELECT id ${from}${order}${limit})${order}`,
            params,
          );
        }
        return run(`SELECT ${columns} ${from}${order}${limit}`, params);
      },
      async count(query) {
        const { from, params } = filtered(query);
        const [row] = await run(`SELECT count(*) AS n ${from}`, params);
        return Number(row?.n ?? 0);
      },
      async keptCount(table, filter) {
        const params: unknown[] = [table];
        const where = ['table_name = $1'];
        const branch = keptBranch(filter.branchId);
        if (branch === null) return 0;
        if (branch !== undefined) {
          params.push(keptBranchKeys(table, branch));
          where.push(`branch_key = ANY($${params.length}::int[])`);
        }
        if (filter.status !== undefined) {
          params.push(filter.status);
          where.push(`status = $${params.length}`);
        }
        const [row] = await run(
          `SELECT coalesce(sum(n), 0) AS n FROM kept_counts WHERE ${where.join(' AND ')}`,
          params,
        );
        return Number(row?.n ?? 0);
      },
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
