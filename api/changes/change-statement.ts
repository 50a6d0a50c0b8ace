// The branch rule for the change feed's one raw query (gateway/src/features/changes): which rows,
// deletes and departures from a branch changed after a cursor, in the feed's order. Like
// api/scoped-sql.ts, the statement carries the caller's branch condition itself: a
// handler never writes it.
//
// The order is (change_xid, kind, type, id): the transaction that made the change, deletes
// (kind 0) before upserts (kind 1) of the same transaction, then type and id. Only changes of
// transactions older than the reader's snapshot xmin are read: every transaction below it has
// ended, so no change can later appear behind the cursor, whatever order transactions commit in
// (docs/decisions/0011-change-feed.md).
import pg from 'pg';
import { ident, join, raw, sql, type Sql } from '#read-model/sql.js';
import { branchCondition, branchRuleOf } from '../branch-rule.js';
import type { DataScope } from '../data-scope.js';
import type { SqlTable } from '../sql-table.js';

/** A position in the feed: everything up to and including this key has been read. */
export interface ChangeKey {
  xid: bigint;
  /** 0 a delete, 1 an upsert; a cursor may say 2: every change of transaction `xid` read. */
  kind: number;
  type: string;
  id: number;
}

export interface ChangeRow extends ChangeKey {
  branch_id: number | null;
  /** ISO instant (api/scoped-sql.ts reads instants as text). */
  changed_at: string;
}

export interface ChangesQuery {
  /** Feed types and their read-model tables, in any order. */
  types: readonly { type: string; table: SqlTable }[];
  after: ChangeKey | null;
  limit: number;
}

export interface ChangesPage {
  /** The statement's snapshot xmin: every change of an older transaction was readable. */
  xmin: bigint;
  /**
   * The last transaction whose deletes of these types the worker has purged, as the same
   * snapshot saw it (0: none): a cursor that has not read past it may have lost some.
   */
  horizon: bigint;
  rows: ChangeRow[];
}

/** Compares feed keys as PostgreSQL orders them (type in byte order: COLLATE "C"). */
export function compareKeys(a: Omit<ChangeKey, 'id'>, b: Omit<ChangeKey, 'id'>): number {
  if (a.xid !== b.xid) return a.xid < b.xid ? -1 : 1;
  if (a.kind !== b.kind) return a.kind - b.kind;
  return a.type === b.type ? 0 : a.type < b.type ? -1 : 1;
}

const TRUE = raw('true');
const ROW_ID = raw('row_id');
const TABLE_ID = raw('t.id');
/** The branch of a tombstone, and of a departure (0: none). */
const TOMBSTONE_BRANCH = raw('branch_id');
const DEPARTED_BRANCH = raw('NULLIF(branch_key, 0)');

/**
 * The names of one feed type in its statement, quoted once per type, not on every page (a
 * type's table is fixed: api/changes/change-types.ts).
 */
interface TypeNames {
  type: Sql;
  table: Sql;
  /** The table's name as a literal, as the feed's bookkeeping tables hold it. */
  tableLiteral: string;
  tableText: Sql;
  /** The row's branch column, or a typed NULL where its rows belong to no branch. */
  branch: Sql;
}
const typeNames = new Map<string, TypeNames>();
function namesOf(type: string, table: string): TypeNames {
  let names = typeNames.get(type);
  if (!names) {
    const rule = branchRuleOf(table);
    const tableLiteral = pg.escapeLiteral(table);
    names = {
      type: raw(`${pg.escapeLiteral(type)}::text`),
      table: ident(table),
      tableLiteral,
      tableText: raw(tableLiteral),
      branch: rule ? sql`t.${ident(rule.column)}` : raw('NULL::integer'),
    };
    typeNames.set(type, names);
  }
  return names;
}

/**
 * The statement of one scope: the keys after the cursor and below the statement's own snapshot
 * xmin, which it returns on every row (on one row of null keys when there are none).
 */
export function changesStatement(scope: DataScope, query: ChangesQuery): Sql {
  const { limit } = query;
  const xid = query.after ? sql`${query.after.xid.toString()}::bigint` : TRUE;
  // The keys after the cursor within one (kind, type): index order (change_xid, id).
  const after = (kind: 0 | 1, type: string, id: Sql) => {
    if (!query.after) return TRUE;
    const order = compareKeys({ xid: 0n, kind, type }, { ...query.after, xid: 0n });
    if (order > 0) return sql`change_xid >= ${xid}`;
    if (order < 0) return sql`change_xid > ${xid}`;
    return sql`(change_xid, ${id}) > (${xid}, ${query.after.id})`;
  };
  const parts: Sql[] = [];
  for (const { type, table } of query.types) {
    const { type: typeText, table: tableName, tableText, branch } = namesOf(type, table);
    const rule = branchRuleOf(table);
    const inBranch = (column?: Sql) =>
      scope.kind === 'branch' && rule ? branchCondition(table, scope.branchId, column)! : TRUE;
    // Ordered by the table's own columns (t.id, not the output's): the index's order, no sort.
    parts.push(sql`(SELECT ${typeText} AS type, t.id AS id, 1 AS kind, t.change_xid,
        ${branch} AS branch_id, t.changed_at FROM ${tableName} t
      WHERE t.change_xid < s.xmin AND ${after(1, type, TABLE_ID)} AND ${inBranch()}
      ORDER BY t.change_xid, t.id LIMIT ${limit})`);
    // A tombstone keeps its row's branch, and follows the row's rule.
    parts.push(sql`(SELECT ${typeText}, row_id, 0, change_xid, branch_id, deleted_at
      FROM sync_tombstones WHERE table_name = ${tableText} AND shown
        AND change_xid < s.xmin AND ${after(0, type, ROW_ID)} AND ${inBranch(TOMBSTONE_BRANCH)}
      ORDER BY change_xid, row_id LIMIT ${limit})`);
    // A row that left the caller's branch is a delete for it; an unbound client sees it move.
    // Its departure keeps the branch it left (0: none).
    if (scope.kind === 'branch' && rule?.column === 'branch_id') {
      parts.push(sql`(SELECT ${typeText}, row_id, 0, change_xid, NULLIF(branch_key, 0), changed_at
        FROM change_departures WHERE table_name = ${tableText}
          AND ${inBranch(DEPARTED_BRANCH)}
          AND change_xid < s.xmin AND ${after(0, type, ROW_ID)}
        ORDER BY change_xid, row_id LIMIT ${limit})`);
    }
  }
  // The xmin is read by this statement, so the keys come from the snapshot it describes; so is
  // the purge horizon (read-model/read-order.ts purgeDeletes), so a purge is either seen there
  // or not yet made: never deletes missing from the page without the horizon saying so.
  const tables = query.types.map(({ type, table }) => namesOf(type, table).tableLiteral);
  const horizon = raw(`(SELECT coalesce(max(purged_xid), 0) FROM change_feed_horizon
      WHERE table_name IN (${tables.join(', ')}))`);
  return sql`WITH snapshot AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin,
        ${horizon} AS horizon)
    SELECT s.xmin::text AS snapshot_xmin, s.horizon::text AS horizon, c.type, c.id, c.kind,
        c.change_xid::text AS xid, c.branch_id, c.changed_at
      FROM snapshot s LEFT JOIN LATERAL (SELECT * FROM (${join(parts, ' UNION ALL ')}) AS changes
        ORDER BY change_xid, kind, type COLLATE "C", id LIMIT ${limit}) c ON true
      ORDER BY c.change_xid, c.kind, c.type COLLATE "C", c.id`;
}

/** The snapshot xmin of a new statement: every transaction below it has ended. */
export const SNAPSHOT_XMIN = sql`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`;
