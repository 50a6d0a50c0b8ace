// The branch rule for the few reads that run as prepared SQL statements on the read model's pg
// pool instead of through Prisma (the hottest ones; docs/decisions/0005-fast-hot-path.md). Like
// ScopedRead, a handler never writes the branch condition: every statement built here carries the
// caller's (branch-sql.ts), and only the synced tables can be named.
import pg from 'pg';
import { branchCondition } from './branch-sql.js';
import type { DataScope } from './data-scope.js';
import {
  changesStatement,
  SNAPSHOT_XMIN,
  type ChangeRow,
  type ChangesQuery,
} from './scoped-changes.js';

/** Tables reachable by SQL: the read model's synced tables (read-model/tables/). */
export type SqlTable =
  | 'members'
  | 'member_packages'
  | 'branches'
  | 'packages'
  | 'financial_transactions'
  | 'installment_plans'
  | 'staff'
  | 'notifications'
  | 'private_lessons'
  | 'presence_records'
  | 'market_products'
  | 'market_categories';

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
}

export interface ScopedSql {
  rows(query: SqlSelect): Promise<Record<string, unknown>[]>;
  count(query: SqlQuery): Promise<number>;
  /** The change feed's keys after a cursor, within the caller's branch (scoped-changes.ts). */
  changes(query: ChangesQuery): Promise<ChangeRow[]>;
  /** The snapshot xmin of a new statement, for `changes`. */
  snapshotXmin(): Promise<bigint>;
}

// Values as the API wants them, as Prisma's mapper would give them to Resource.toApi: numeric as
// a number, a calendar day as its YYYY-MM-DD text (never a local-midnight Date), bigint count as
// a number.
const NUMERIC = 1700;
const DATE = 1082;
const INT8 = 20;
const asNumber = (value: string) => Number(value);
const asText = (value: string) => value;
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown => {
    if (oid === NUMERIC || oid === INT8) return asNumber;
    if (oid === DATE) return asText;
    return pg.types.getTypeParser(oid, format) as unknown;
  }) as pg.CustomTypesConfig['getTypeParser'],
};

export function createScopedSql(pool: pg.Pool): (scope: DataScope) => ScopedSql {
  // One prepared statement per distinct text; the texts come from code, so they are few.
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (!name) names.set(text, (name = `gateway_${names.size + 1}`));
    return name;
  };
  const run = async (text: string, values: unknown[]) =>
    (await pool.query({ name: nameOf(text), text, values, types })).rows as Record<
      string,
      unknown
    >[];

  return (scope: DataScope): ScopedSql => {
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
    return {
      rows(query) {
        const { from, params } = filtered(query);
        let text = `SELECT ${query.columns.map(pg.escapeIdentifier).join(', ')} ${from}`;
        if (query.orderBy) text += ` ORDER BY ${query.orderBy}`;
        if (query.window) {
          params.push(query.window.take, query.window.skip);
          text += ` LIMIT $${params.length - 1} OFFSET $${params.length}`;
        }
        return run(text, params);
      },
      async count(query) {
        const { from, params } = filtered(query);
        const [row] = await run(`SELECT count(*) AS n ${from}`, params);
        return Number(row?.n ?? 0);
      },
      async changes(query) {
        // Unnamed: the text varies with the types asked for and the cursor's place.
        const { text, values } = changesStatement(scope, query);
        const { rows } = await pool.query<Record<string, unknown>>({ text, values, types });
        return rows.map((row) => ({
          xid: BigInt(row.xid as string),
          kind: row.kind === 0 ? 0 : 1,
          type: row.type as string,
          id: Number(row.id),
          branch_id: row.branch_id === null ? null : Number(row.branch_id),
          changed_at: row.changed_at as Date,
        }));
      },
      async snapshotXmin() {
        const [row] = await run(SNAPSHOT_XMIN, []);
        return BigInt(row!.xmin as string);
      },
    };
  };
}
