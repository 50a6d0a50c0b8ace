// Which traced member write a row's present state comes from (docs/decisions/0017-traces.md). The
// gateway stores its request's traceparent in the write's audit record, in the statement that
// puts the row in the read model; the record keeps that transaction (change_xid), which the row
// also carries until something else changes it. So a row whose change_xid is its write's record's
// is, in the read model, exactly what that write made: the sync run that reads it again and the
// webhooks of that change link to the write's trace. Used only while tracing is on.
import type pg from 'pg';

/** A pool, or the connection of a transaction under way. */
type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** For each member whose row the read model holds as a traced write made it: its traceparent. */
export async function memberWriteTraceParents(
  db: Queryable,
  memberIds: readonly number[],
): Promise<Map<number, string>> {
  if (memberIds.length === 0) return new Map();
  const { rows } = await db.query<{ id: number; trace_parent: string }>({
    name: 'member_write_trace_parents',
    text: `SELECT m.id, a.trace_parent
             FROM members m
             JOIN member_write_audit a ON a.member_id = m.id AND a.change_xid = m.change_xid
            WHERE m.id = ANY($1::int[]) AND a.trace_parent IS NOT NULL`,
    values: [memberIds],
  });
  return new Map(rows.map((row) => [row.id, row.trace_parent]));
}
