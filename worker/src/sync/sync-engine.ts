// The one sync engine: keyset polling of a legacy table on (changed-at, key), idempotent upserts
// into the read model, and the table's position committed in the same PostgreSQL transaction.
//
// Late commits: a dashboard transaction may commit seconds after the updated_at it wrote, so
// the stored position never passes "legacy now - look-back"; each poll re-reads that window
// and the upsert's IS DISTINCT FROM guard keeps unchanged rows from being written again.
// Tables without a change column are polled for new ids only; their in-place changes and
// deletes are left to the reconciliation (reconcile.ts).
//
// A table's first load reads it in primary-key order (a range scan of MySQL's clustered index,
// not an index read and a row lookup per row), then goes on by change time from the load's
// start, minus the look-back, for the rows changed while it ran (its start: first-load.ts).
// Positions and the batch query: sync-position.ts; the legacy reads: legacy-reader.ts.
import pLimit from 'p-limit';
import { readModelPool, type ReadModelClient } from '#common/databases.js';
import { tracing } from '#common/traces.js';
import { refreshDependentsOfTable } from '#read-model/dependents.js';
import {
  applyFirstLoadBatch,
  mapFirstLoadBatch,
  type FirstLoadBatch,
} from '#read-model/first-load-writes.js';
import { legacyRowObjects, type LegacyBatch } from '#read-model/legacy-rows.js';
import { nextReadOrder, type ReadOrder } from '#read-model/read-order.js';
import type { SyncTable } from '#read-model/table-definition.js';
import { membersTable } from '#read-model/tables/members.table.js';
import { pgRows, sql } from '#read-model/sql.js';
import { readModelTransaction } from '#read-model/transaction.js';
import { applyLegacyRows } from '#read-model/writes.js';
import { memberWriteTraceParents } from '../write-traces.js';
import { restoreIndexes, startFirstLoad } from './first-load.js';
import { DEFAULT_SYNC_OPTIONS, type SyncDatabases, type SyncOptions } from './sync-databases.js';
import { legacyBatch, legacyClock } from './legacy-reader.js';
import { batchQuery, positionAfter, type Position } from './sync-position.js';

export interface SyncRunResult {
  table: string;
  rowsRead: number;
  rowsWritten: number;
  caughtUp: boolean;
  /** Where the run's time went: reading the legacy table, writing the read model. */
  legacyReadMs: number;
  writeMs: number;
}

export async function syncTable(
  table: SyncTable,
  db: SyncDatabases,
  options: SyncOptions = DEFAULT_SYNC_OPTIONS,
): Promise<SyncRunResult> {
  const started = Date.now();
  const state = await db.readModel.syncState.findUnique({ where: { table_name: table.name } });
  // Until a table has caught up once, its copies in other tables are refreshed at the catch-up.
  const firstLoad = !state?.synced_at;
  const start = state
    ? {
        position: {
          changedAt: state.cursor_changed_at,
          id: state.cursor_id,
          loadKey: state.load_cursor,
        },
        deferredIndexes: state.deferred_indexes,
      }
    : await startFirstLoad(table, db, options);
  let position = start.position;
  const result: SyncRunResult = {
    table: table.name,
    rowsRead: 0,
    rowsWritten: 0,
    caughtUp: false,
    legacyReadMs: 0,
    writeMs: 0,
  };

  let next: Promise<Batch> | null = readNext(table, db, position, options);
  while (next) {
    const batch: Batch = await next;
    result.legacyReadMs += batch.readMs;
    result.rowsRead += batch.rows.values.length;
    const lastBatch = batch.rows.values.length < options.batchSize;
    const inKeyOrder = position.loadKey !== null;
    // The end of a load in key order is not caught up: the rows changed meanwhile come next.
    result.caughtUp = lastBatch && !inKeyOrder;
    position = positionAfter(table, batch.rows, position, lastBatch);
    // The next batch is read from the legacy database while this one is mapped and written.
    next =
      result.caughtUp || Date.now() - started >= options.timeBudgetMs
        ? null
        : readNext(table, db, position, options);
    const writeStartedAt = Date.now();
    try {
      // Rows the read model most likely lacks go by COPY: a first load's in key order or, for a
      // table without a change column, by new ids. The pass by change time after a load in key
      // order reads rows the load has written: they take the upsert path at once. The rows are
      // mapped to COPY bytes here, while the next batch is read: the legacy server runs its
      // query as the worker maps (docs/decisions/0002, first load).
      const copied = firstLoad && (inKeyOrder || !table.changedAt);
      const mapped = copied
        ? mapFirstLoadBatch(table, batch.rows, { inKeyOrder, order: batch.order })
        : null;
      const step = { position, caughtUp: result.caughtUp, firstLoad, mapped };
      result.rowsWritten += await commitBatch(table, db, batch, step, options);
      // A first load's rows come before any write of the API's: none to link.
      if (!mapped) await linkMemberWrites(table, db.readModel, batch.rows);
    } catch (error) {
      // The batch read ahead is dropped with the run; its slot is not.
      void next?.then(
        (ahead) => ahead.release(),
        () => undefined,
      );
      throw error;
    } finally {
      batch.release();
    }
    result.writeMs += Date.now() - writeStartedAt;
  }
  if (result.caughtUp && start.deferredIndexes.length > 0) {
    await restoreIndexes(table, db.readModel, start.deferredIndexes);
  }
  return result;
}

/**
 * While tracing is on, links the run's span (sync-runner.ts) to the member writes whose rows the
 * committed batch read and the read model holds as those writes made them (../write-traces.ts):
 * the sync of a row the API wrote is found from the write's trace.
 */
async function linkMemberWrites(
  table: SyncTable,
  readModel: ReadModelClient,
  rows: LegacyBatch,
): Promise<void> {
  const traces = tracing();
  if (!traces || table.name !== membersTable.name || rows.values.length === 0) return;
  const ids = legacyRowObjects(rows).map((row) => Number(row.id));
  const parents = await memberWriteTraceParents(readModelPool(readModel), ids);
  traces.addLinks([...parents.values()]);
}

interface Batch {
  rows: LegacyBatch;
  /** Taken before the batch's legacy read began (read-order.ts). */
  order: ReadOrder;
  legacyNow: Date | null;
  readStartedAt: Date;
  readMs: number;
  /** Gives the batch's slot back (batchSlots) once it is written. */
  release(): void;
}

/**
 * Batches held by the process at once, being read or written, whatever the number of tables:
 * during a backfill every big table has a batch written and the next one read ahead, and the
 * worker's memory must stay bounded by a few batches, not grow with the tables. A run only waits
 * for a slot while holding none (its current batch's slot is given back after the commit), so
 * runs never wait on each other in a circle. Six: three big tables loading at once each have one
 * batch written and the next read ahead; with four, a backfill's big tables took turns and
 * left the two cores partly idle; eight were no faster (docs/decisions/0002, first load). A batch
 * read ahead waits as the driver's arrays of values, and is mapped to one Buffer only when its
 * turn comes: six keep the worker's peak near 200 MB, under its memory bound.
 */
const batchSlots = pLimit(6);

/** Waits for a batch slot; resolves to the function giving it back (a second call does nothing). */
function takeBatchSlot(): Promise<() => void> {
  return new Promise((taken) => {
    // The slot is held until the returned function settles the task p-limit runs in it.
    void batchSlots(() => new Promise<void>((giveBack) => taken(() => giveBack())));
  });
}

function readNext(
  table: SyncTable,
  db: SyncDatabases,
  from: Position,
  options: SyncOptions,
): Promise<Batch> {
  const read = async (): Promise<Batch> => {
    const release = await takeBatchSlot();
    try {
      const readStartedAt = new Date();
      const order = await nextReadOrder(db.readModel);
      // The horizon of a batch read by change time (commitBatch); a load in key order has none.
      const legacyNow =
        table.changedAt && from.loadKey === null ? await legacyClock(db.legacy) : null;
      const rows = await legacyBatch(db.legacy, batchQuery(table, from, options.batchSize));
      const readMs = Date.now() - readStartedAt.getTime();
      await db.afterRead?.(table);
      return { rows, order, legacyNow, readStartedAt, readMs, release };
    } catch (error) {
      release();
      throw error;
    }
  };
  const promise = read();
  // Awaited later, or dropped when the run ends first: never an unhandled rejection.
  promise.catch(() => undefined);
  return promise;
}

const SYNC_STATE_COLUMNS = sql`(table_name, cursor_changed_at, cursor_id, load_cursor, synced_at,
  rows_synced, updated_at)`;
const SYNC_STATE_CONFLICT = sql`ON CONFLICT (table_name) DO UPDATE SET
  cursor_changed_at = EXCLUDED.cursor_changed_at,
  cursor_id = EXCLUDED.cursor_id,
  load_cursor = EXCLUDED.load_cursor,
  synced_at = COALESCE(EXCLUDED.synced_at, s.synced_at),
  rows_synced = s.rows_synced + EXCLUDED.rows_synced,
  updated_at = EXCLUDED.updated_at`;

/** Writes a batch and the table's position in one read-model transaction. */
async function commitBatch(
  table: SyncTable,
  db: SyncDatabases,
  batch: Batch,
  {
    position,
    caughtUp,
    firstLoad,
    mapped,
  }: {
    position: Position;
    caughtUp: boolean;
    firstLoad: boolean;
    /** A first load's batch, mapped (mapFirstLoadBatch); null otherwise. */
    mapped: FirstLoadBatch | null;
  },
  options: SyncOptions,
): Promise<number> {
  const { legacyNow, readStartedAt } = batch;
  const horizon = legacyNow && new Date(legacyNow.getTime() - options.lookbackSeconds * 1000);
  const stored: Position =
    horizon && position.changedAt && position.changedAt > horizon
      ? { changedAt: horizon, id: 0n, loadKey: null }
      : position;
  // The position is legacy wall-clock time, kept as is in a column without time zone: its UTC
  // fields are the value (toISOString; the zone of the text is ignored).
  const row = sql`${table.name}::text, ${stored.changedAt?.toISOString() ?? null}::timestamp,
    ${stored.id}::bigint, ${stored.loadKey}::bigint, ${caughtUp ? readStartedAt : null}::timestamptz`;
  if (batch.rows.values.length === 0 && !firstLoad) {
    // Most passes find nothing and only move the table's freshness: one statement, a transaction
    // of its own, instead of four round trips (an idle worker's passes at 100 ms cost 0.9 of a
    // core in all). set_config(..., true) is that transaction's SET LOCAL: nothing a crash could
    // lose here is worth a WAL flush, as below.
    await pgRows(
      readModelPool(db.readModel),
      sql`INSERT INTO sync_state AS s ${SYNC_STATE_COLUMNS}
        SELECT ${row}, 0, now() FROM (SELECT set_config('synchronous_commit', 'off', true)) AS commit_mode
        ${SYNC_STATE_CONFLICT}`,
    );
    return 0;
  }
  const committed = await readModelTransaction(db.readModel, async (tx) => {
    // Rows and position commit together, so a commit lost in a crash is simply read again: no
    // need to wait for the WAL flush.
    await tx.$executeRaw`SET LOCAL synchronous_commit TO OFF`;
    const written = mapped
      ? await applyFirstLoadBatch(tx, table, mapped, db.onRejected)
      : await applyLegacyRows(tx, table, legacyRowObjects(batch.rows), batch.order, db.onRejected);
    if (firstLoad && caughtUp) await refreshDependentsOfTable(tx, table);
    await tx.$executeRaw`INSERT INTO sync_state AS s ${SYNC_STATE_COLUMNS}
      VALUES (${row}, ${written}, now()) ${SYNC_STATE_CONFLICT}`;
    return written;
  });
  if (committed > 0) db.onCommitted?.();
  return committed;
}
