// The order of legacy reads: the read model never goes back in time.
//
// Every write into the read model comes from a read of legacy rows: a sync batch, a look-back
// re-read, a reconciliation repair, a first load, or the gateway's read-back of a member it has
// just written. Each read takes a number from the PostgreSQL sequence sync_read_order before it
// begins (the gateway: after its legacy commit, in the statement that applies the row); every
// read-model row keeps the number of the read that last wrote it (read_order), and every delete
// leaves a tombstone with its read's number (sync_tombstones). A write applies only when its read
// is later than the row's: a read that began later began after every commit the earlier one
// could have seen, so it holds the same version of the row or a newer one. The rule and its one
// window are in docs/decisions/0002-sync-by-polling-with-look-back.md, "Ordered writes".
import { pgRows, sql, type Sql } from './sql.js';
import { readModelPool, type ReadModelClient } from '#common/databases.js';

/** The number a read took from sync_read_order before it began. */
export type ReadOrder = bigint;

/** Takes the next read order; call it before the legacy read begins. */
export async function nextReadOrder(readModel: ReadModelClient): Promise<ReadOrder> {
  const [row] = await pgRows<{ n: string }>(
    readModelPool(readModel),
    sql`SELECT nextval('sync_read_order') AS n`,
  );
  return BigInt(row!.n);
}

/** A read order as SQL: a parameter, or an expression of the statement (the gateway's CTE). */
export type ReadOrderSql = Sql;

export const readOrderParameter = (order: ReadOrder): ReadOrderSql => sql`${order}::bigint`;

/**
 * The least a tombstone is kept. For the order of writes it only has to outlive the reads that
 * began before its delete: a read is written in the sync run that made it, which stops after its
 * time budget, and every statement has a timeout, so an hour is far beyond any read in flight.
 * The change feed keeps them longer (CHANGES_RETENTION_DAYS).
 */
const TOMBSTONE_MIN_RETENTION_MS = 3_600_000;

/**
 * Drops a table's tombstones and branch departures older than `retentionMs` (at the end of a
 * reconciliation pass); tombstones are kept at least an hour whatever the retention. Records, in
 * the same statement, the last transaction whose feed deletes went (change_feed_horizon): the
 * feed answers 410 to a cursor that has not read past it, and sees the purge and the horizon
 * together or neither.
 */
export async function purgeDeletes(
  readModel: ReadModelClient,
  table: string,
  retentionMs: number,
): Promise<void> {
  const keptMs = Math.max(retentionMs, TOMBSTONE_MIN_RETENTION_MS);
  // A tombstone the feed never showed (shown = false) takes nothing from anyone.
  await pgRows(
    readModelPool(readModel),
    sql`WITH tombstones AS (DELETE FROM sync_tombstones WHERE table_name = ${table}
        AND deleted_at < now() - make_interval(secs => ${keptMs}::float8 / 1000)
        RETURNING CASE WHEN shown THEN change_xid END AS xid),
      departures AS (DELETE FROM change_departures WHERE table_name = ${table}
        AND changed_at < now() - make_interval(secs => ${retentionMs}::float8 / 1000)
        RETURNING change_xid AS xid),
      purged AS (SELECT max(xid) AS xid
        FROM (SELECT xid FROM tombstones UNION ALL SELECT xid FROM departures) AS gone)
    INSERT INTO change_feed_horizon AS h (table_name, purged_xid)
    SELECT ${table}::text, xid FROM purged WHERE xid IS NOT NULL
    ON CONFLICT (table_name) DO UPDATE
      SET purged_xid = GREATEST(h.purged_xid, EXCLUDED.purged_xid), purged_at = now()`,
  );
}
