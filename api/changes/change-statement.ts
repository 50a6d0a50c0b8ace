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

/**
 * The statement of one scope: the keys after the cursor and below the statement's own snapshot
 * xmin, which it returns on every row (on one row of null keys when there are none).
 */
export function changesStatement(scope: DataScope, query: ChangesQuery) {
  const values: unknown[] = [query.limit];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  // The bound branch's parameter, pushed when a condition first uses it: a parameter no
  // statement part mentions has no type, and PostgreSQL refuses the statement.
  let boundParam: string | undefined;
  const bound = (branchId: number) => (boundParam ??= param(branchId));
  // The keys after the cursor within one (kind, type): index order (change_xid, id).
  const after = (kind: 0 | 1, type: string, id: string) => {
    if (!query.after) return 'true';
    const xid = `${param(query.after.xid.toString())}::bigint`;
    const order = compareKeys({ xid: 0n, kind, type }, { ...query.after, xid: 0n });
    if (order > 0) return `change_xid >= ${xid}`;
    if (order < 0) return `change_xid > ${xid}`;
    return `(change_xid, ${id}) > (${xid}, ${param(query.after.id)})`;
  };
  const parts: string[] = [];
  for (const { type, table } of query.types) {
    const typeText = `${pg.escapeLiteral(type)}::text`;
    const tableText = pg.escapeLiteral(table);
    const rule = branchRuleOf(table);
    const inBranch = (column?: string) =>
      scope.kind === 'branch' && rule
        ? branchCondition(table, bound(scope.branchId), column)!
        : 'true';
    const branch = rule ? `t.${pg.escapeIdentifier(rule.column)}` : 'NULL::integer';
    // Ordered by the table's own columns (t.id, not the output's): the index's order, no sort.
    parts.push(`(SELECT ${typeText} AS type, t.id AS id, 1 AS kind, t.change_xid,
        ${branch} AS branch_id, t.changed_at FROM ${pg.escapeIdentifier(table)} t
      WHERE t.change_xid < s.xmin AND ${after(1, type, 't.id')} AND ${inBranch()}
      ORDER BY t.change_xid, t.id LIMIT $1)`);
    // A tombstone keeps its row's branch, and follows the row's rule.
    parts.push(`(SELECT ${typeText}, row_id, 0, change_xid, branch_id, deleted_at
      FROM sync_tombstones WHERE table_name = ${tableText} AND shown
        AND change_xid < s.xmin AND ${after(0, type, 'row_id')} AND ${inBranch('branch_id')}
      ORDER BY change_xid, row_id LIMIT $1)`);
    // A row that left the caller's branch is a delete for it; an unbound client sees it move.
    // Its departure keeps the branch it left (0: none).
    if (scope.kind === 'branch' && rule?.column === 'branch_id') {
      parts.push(`(SELECT ${typeText}, row_id, 0, change_xid, NULLIF(branch_key, 0), changed_at
        FROM change_departures WHERE table_name = ${tableText}
          AND ${inBranch('NULLIF(branch_key, 0)')}
          AND change_xid < s.xmin AND ${after(0, type, 'row_id')}
        ORDER BY change_xid, row_id LIMIT $1)`);
    }
  }
  // The xmin is read by this statement, so the keys come from the snapshot it describes; so is
  // the purge horizon (read-model/read-order.ts purgeDeletes), so a purge is either seen there
  // or not yet made: never deletes missing from the page without the horizon saying so.
  const tables = query.types.map(({ table }) => pg.escapeLiteral(table));
  const horizon = `(SELECT coalesce(max(purged_xid), 0) FROM change_feed_horizon
      WHERE table_name IN (${tables.join(', ')}))`;
  const text = `WITH snapshot AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin,
        ${horizon} AS horizon)
    SELECT s.xmin::text AS snapshot_xmin, s.horizon::text AS horizon, c.type, c.id, c.kind,
        c.change_xid::text AS xid, c.branch_id, c.changed_at
      FROM snapshot s LEFT JOIN LATERAL (SELECT * FROM (${parts.join(' UNION ALL ')}) AS changes
        ORDER BY change_xid, kind, type COLLATE "C", id LIMIT $1) c ON true
      ORDER BY c.change_xid, c.kind, c.type COLLATE "C", c.id`;
  return { text, values };
}

/** The snapshot xmin of a new statement: every transaction below it has ended. */
export const SNAPSHOT_XMIN = 'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin';
