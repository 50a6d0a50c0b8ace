// Reconciliation of every table: repairs what keyset polling cannot see (hard deletes, in-place
// changes of tables without updated_at, updates that keep updated_at, imports with an old
// explicit updated_at, inserts committed out of id order, stale derived copies). Each pass walks
// the primary key in spans; per span both databases compute bucket checksums (checksum.ts), and
// only buckets that differ are read row by row and repaired through the incremental sync's own
// write path. A pass runs in time slices between the table's sync runs, resuming from a cursor
// kept in sync_state, so a big table never holds up its sync. Within a slice, each span is
// followed by a rest as long as it took: a pass holds a database's core for a few tens of
// milliseconds at a time, never for the whole slice, and requests served meanwhile do not queue
// behind it (docs/decisions/0018-a-year-unattended.md).
import { setTimeout as sleep } from 'node:timers/promises';
import { ident, join, raw, sql } from '#read-model/sql.js';
import { differingBuckets, legacyBuckets, readModelBuckets } from './checksum.js';
import { classify } from './compare.js';
import { deleteRows } from '#read-model/deletes.js';
import { applyLegacyRows } from '#read-model/writes.js';
import { nextReadOrder, purgeDeletes } from '#read-model/read-order.js';
import { readModelTransaction } from '#read-model/transaction.js';
import { legacyRows } from './legacy-reader.js';
import type { SyncDatabases } from './sync-databases.js';
import { legacySource, type SyncTable } from '#read-model/table-definition.js';

export interface ReconcileOptions {
  /** Primary-key values per checksum query (one query on each side), a few tens of ms each. */
  spanIds: number;
  /** Primary-key values per bucket: the unit read row by row when it differs. */
  bucketWidth: number;
  /** A slice stops after this long; the pass goes on in the table's next reconcile job. */
  sliceMs: number;
  /** Only go on with a pass in progress (a follow-up job), never start one. */
  continueOnly?: boolean;
  /** How long deletes stay in the change feed (CHANGES_RETENTION_DAYS); older ones are purged. */
  deletesKeptMs: number;
}

export const DEFAULT_RECONCILE_OPTIONS: ReconcileOptions = {
  spanIds: 5_000,
  bucketWidth: 500,
  sliceMs: 300,
  deletesKeptMs: 30 * 86_400_000,
};

export interface ReconcileResult {
  table: string;
  written: number;
  deleted: number;
  /** Legacy rows the checksums covered, and rows read one by one from differing buckets. */
  legacyRowsChecked: number;
  legacyRowsRead: number;
  bucketsRepaired: number;
  /** Time spent in legacy queries. */
  legacyMs: number;
  /** Whether this slice ended the pass. */
  passFinished: boolean;
}

export async function reconcileTable(
  table: SyncTable,
  db: SyncDatabases,
  options: ReconcileOptions = DEFAULT_RECONCILE_OPTIONS,
): Promise<ReconcileResult> {
  const started = Date.now();
  const result: ReconcileResult = {
    table: table.name,
    written: 0,
    deleted: 0,
    legacyRowsChecked: 0,
    legacyRowsRead: 0,
    bucketsRepaired: 0,
    legacyMs: 0,
    passFinished: false,
  };
  const state = await db.readModel.syncState.findUnique({ where: { table_name: table.name } });
  // Until the table's first catch-up the backfill is still reading every row: a pass would only
  // find the rows it has not reached yet and copy them a second time, slowing it down. While
  // another table's first load goes on, a pass would take the two databases' time from it
  // (figures: docs/decisions/0002): passes wait for it,
  // unless it has committed nothing for LOAD_STALLED_AFTER (a load that fails on and on).
  if (!state?.synced_at || (await firstLoadGoingOn(db))) return { ...result, passFinished: true };
  const passStartedAt = state?.reconcile_cursor != null ? state.reconcile_started_at : null;
  let cursor = passStartedAt ? state.reconcile_cursor! : -1n;
  const pass = passStartedAt ?? new Date(started);
  if (!passStartedAt && options.continueOnly) return { ...result, passFinished: true };

  while (Date.now() - started < options.sliceMs) {
    const next = await nextKey(table, db, cursor, result);
    if (next === null) {
      result.passFinished = true;
      break;
    }
    const width = BigInt(options.bucketWidth);
    const from = next - (next % width);
    const to = from + BigInt(options.spanIds);
    const spanStarted = Date.now();
    await reconcileSpan(table, db, from, to, options.bucketWidth, result);
    cursor = to - 1n;
    await sleep(Date.now() - spanStarted);
  }
  // A finished pass is as good a moment as any to drop the table's old tombstones.
  if (result.passFinished) await purgeDeletes(db.readModel, table.name, options.deletesKeptMs);
  const progress = result.passFinished
    ? { reconcile_cursor: null, reconcile_started_at: null, reconciled_at: pass }
    : { reconcile_cursor: cursor, reconcile_started_at: pass };
  await db.readModel.syncState.upsert({
    where: { table_name: table.name },
    create: { table_name: table.name, ...progress },
    update: progress,
  });
  return result;
}

const LOAD_STALLED_AFTER = '5 minutes';

/** Whether some table's first load has committed a batch lately (sync_state.updated_at). */
async function firstLoadGoingOn(db: SyncDatabases): Promise<boolean> {
  const [row] = await db.readModel.$queryRaw<{ loading: boolean }[]>`SELECT EXISTS (
    SELECT 1 FROM sync_state WHERE synced_at IS NULL
      AND updated_at > now() - ${LOAD_STALLED_AFTER}::interval) AS loading`;
  return row?.loading === true;
}

/** The smallest primary key past the cursor on either side, or null at the end of the pass. */
async function nextKey(
  table: SyncTable,
  db: SyncDatabases,
  cursor: bigint,
  result: ReconcileResult,
): Promise<bigint | null> {
  const key = raw(table.key);
  const legacyStarted = Date.now();
  const [legacyRow] = await legacyRows(
    db.legacy,
    sql`SELECT ${key} AS id
      FROM ${raw(`${table.from.table} ${table.from.alias}`)} WHERE ${key} > ${cursor} ORDER BY ${key} LIMIT 1`,
  );
  result.legacyMs += Date.now() - legacyStarted;
  const [held] = await db.readModel.$queryRaw<{ id: bigint | null }[]>`SELECT min(id)::bigint AS id
    FROM ${ident(table.name)} WHERE id > ${cursor}`;
  const candidates = [legacyRow?.id, held?.id]
    .filter((v) => v !== null && v !== undefined)
    .map((v) => BigInt(v as bigint | number));
  return candidates.length === 0 ? null : candidates.reduce((a, b) => (a < b ? a : b));
}

async function reconcileSpan(
  table: SyncTable,
  db: SyncDatabases,
  from: bigint,
  to: bigint,
  bucketWidth: number,
  result: ReconcileResult,
) {
  const legacyStarted = Date.now();
  const legacySums = await legacyBuckets(table, db, from, to, bucketWidth);
  result.legacyMs += Date.now() - legacyStarted;
  const heldSums = await readModelBuckets(table, db, from, to, bucketWidth);
  for (const sum of legacySums.values()) result.legacyRowsChecked += sum.count;
  for (const bucket of differingBuckets(legacySums, heldSums)) {
    const lo = bucket * BigInt(bucketWidth);
    await repairRange(table, db, lo, lo + BigInt(bucketWidth) - 1n, result);
  }
}

/** Row-by-row comparison and repair of the keys lo..hi, in one read-model transaction. */
export async function repairRange(
  table: SyncTable,
  db: SyncDatabases,
  lo: bigint,
  hi: bigint,
  result: ReconcileResult,
) {
  const key = raw(table.key);
  const order = await nextReadOrder(db.readModel);
  const legacyStarted = Date.now();
  const rows = await legacyRows(
    db.legacy,
    sql`${legacySource(table)} WHERE ${key} BETWEEN ${lo} AND ${hi} ORDER BY ${key}`,
  );
  result.legacyMs += Date.now() - legacyStarted;
  await db.afterRead?.(table);
  result.legacyRowsRead += rows.length;
  const columns = join(Object.keys(table.columns).map(ident));
  const readRows = await db.readModel.$queryRaw<Record<string, unknown>[]>`SELECT ${columns}
    FROM ${ident(table.name)} WHERE id BETWEEN ${lo} AND ${hi}`;
  const held = new Map(readRows.map((row) => [Number(row.id as number | bigint), row]));
  const chunk = classify(table, rows, held);
  result.bucketsRepaired += 1;
  if (chunk.toWrite.length === 0 && chunk.toDelete.length === 0) return;
  await readModelTransaction(db.readModel, async (tx) => {
    await applyLegacyRows(tx, table, chunk.toWrite, order, db.onRejected);
    await deleteRows(tx, table, chunk.toDelete, order);
  });
  result.written += chunk.toWrite.length - chunk.rejected.length;
  result.deleted += chunk.toDelete.length;
}
