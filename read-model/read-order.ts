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
import { Prisma as Sql } from '../prisma/generated/read-model/client.js';
import { readModelPool, type ReadModelClient } from '../common/databases.js';

/** The number a read took from sync_read_order before it began. */
export type ReadOrder = bigint;

/** Takes the next read order; call it before the legacy read begins. */
export async function nextReadOrder(readModel: ReadModelClient): Promise<ReadOrder> {
  const { rows } = await readModelPool(readModel).query<{ n: string }>(
    "SELECT nextval('sync_read_order') AS n",
  );
  return BigInt(rows[0]!.n);
}

/** A read order as SQL: a parameter, or an expression of the statement (the gateway's CTE). */
export type ReadOrderSql = Sql.Sql;

export const readOrderParameter = (order: ReadOrder): ReadOrderSql => Sql.sql`${order}::bigint`;

/**
 * The least a tombstone is kept. For the order of writes it only has to outlive the reads that
 * began before its delete: a read is written in the sync run that made it, which stops after its
 * time budget, and every statement has a timeout, so an hour is far beyond any read in flight.
 * The change feed keeps them longer (CHANGES_RETENTION_DAYS).
 */
const TOMBSTONE_MIN_RETENTION_MS = 3_600_000;

/**
 * Drops a table's tombstones and branch departures older than `retentionMs` (at the end of a
 * reconciliation pass); tombstones are kept at least an hour whatever the retention.
 */
export async function purgeDeletes(
  readModel: ReadModelClient,
  table: string,
  retentionMs: number,
): Promise<void> {
  const pool = readModelPool(readModel);
  const keptMs = Math.max(retentionMs, TOMBSTONE_MIN_RETENTION_MS);
  await pool.query(
    `DELETE FROM sync_tombstones WHERE table_name = $1
      AND deleted_at < now() - make_interval(secs => $2::float8 / 1000)`,
    [table, keptMs],
  );
  await pool.query(
    `DELETE FROM change_departures WHERE table_name = $1
      AND changed_at < now() - make_interval(secs => $2::float8 / 1000)`,
    [table, retentionMs],
  );
}
