// What a client of the binary log (binlog-follower.ts) does with the row events it reads: the
// keys each event names are gathered per synced table until their transaction commits, and the
// committed transactions of up to BATCH_MS or BATCH_KEYS keys make a batch, handed to `apply`
// with the position of its last commit (docs/decisions/0016).
import type { RowsEvent } from '@vlasky/zongji';
import type { SyncTable } from '#read-model/table-definition.js';
import { columnName } from '#read-model/transaction.js';
import type { ChangedKeys } from './apply-changes.js';
import type { BinlogPosition } from './binlog-position.js';

/** A batch is applied this long after its first commit arrived, or at BATCH_KEYS keys. */
const BATCH_MS = 50;
const BATCH_KEYS = 5000;
/**
 * Commits that touch no synced table (other tables, other databases) still move the stored
 * position, at most this often: a restart then re-reads seconds of log, not all of it since the
 * last change of a synced table, and a position is not left in a file the server may purge.
 */
const POSITION_ONLY_MS = 1000;

/** The synced tables read from each legacy table (several may read one). */
export function tablesByLegacyName(tables: readonly SyncTable[]): Map<string, SyncTable[]> {
  const byLegacyTable = new Map<string, SyncTable[]>();
  for (const table of tables) {
    byLegacyTable.set(table.from.table, [...(byLegacyTable.get(table.from.table) ?? []), table]);
  }
  return byLegacyTable;
}

/** Adds the keys a row event names to `open`, under each synced table its legacy table feeds. */
export function collectRowKeys(
  open: ChangedKeys,
  byLegacyTable: ReadonlyMap<string, readonly SyncTable[]>,
  event: RowsEvent & { rows: unknown[] },
) {
  const legacyTable = event.tableMap[event.tableId]?.tableName;
  for (const table of byLegacyTable.get(legacyTable ?? '') ?? []) {
    const key = columnName(table.key);
    const ids = open.get(table) ?? new Set<number>();
    open.set(table, ids);
    for (const row of event.rows as Record<string, Record<string, unknown>>[]) {
      // An update names the key before and after: both rows may have changed.
      for (const image of 'after' in row ? [row.before, row.after] : [row]) {
        const id = image?.[key];
        if (id !== null && id !== undefined) ids.add(Number(id));
      }
    }
  }
}

/** Adds a committed transaction's keys to the batch; returns how many were new to it. */
export function mergeCommitted(batch: ChangedKeys, committed: ChangedKeys): number {
  let added = 0;
  for (const [table, ids] of committed) {
    const into = batch.get(table) ?? new Set<number>();
    batch.set(table, into);
    const before = into.size;
    for (const id of ids) into.add(id);
    added += into.size - before;
  }
  return added;
}

export interface BatchApplierOptions {
  /** Applies a batch and stores `position` with it (apply-changes.ts). */
  apply(changed: ChangedKeys, position: BinlogPosition): Promise<unknown>;
  /** A batch was applied: the read model has caught up with the log read so far. */
  applied(): void;
  /** A batch could not be applied: the client stops. */
  failed(error: unknown): void;
}

/**
 * The batches of one client: committed keys wait BATCH_MS (or apply at once at BATCH_KEYS);
 * batches are applied one after the other, in the order of the log.
 */
export function batchApplier(options: BatchApplierOptions) {
  /** Keys of committed transactions waiting to be applied. */
  let batch: ChangedKeys = new Map();
  let batchKeys = 0;
  /** The position of the last commit read. */
  let through: BinlogPosition | null = null;
  let timer: NodeJS.Timeout | null = null;
  /** The timer waits out POSITION_ONLY_MS for a position alone, not BATCH_MS for keys. */
  let deferred = false;
  /** The last position handed to applying, and how many batches are being applied. */
  let queued: BinlogPosition | null = null;
  let inFlight = 0;
  let applying: Promise<void> = Promise.resolve();
  let positionWrittenAt = Date.now();

  const schedule = (ms: number, isDeferral: boolean) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(flush, ms);
    deferred = isDeferral;
  };
  /** Applies the batch read; a position alone waits out POSITION_ONLY_MS unless `now`. */
  function flush(now = false) {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!through || (batchKeys === 0 && through === queued)) return;
    const wait = POSITION_ONLY_MS - (Date.now() - positionWrittenAt);
    if (batchKeys === 0 && wait > 0 && !now) {
      // Written once the wait is over: at rest the stored position reaches the last commit,
      // and the bytes behind their zero.
      schedule(wait, true);
      return;
    }
    positionWrittenAt = Date.now();
    const changed = batch;
    const position = through;
    queued = position;
    batch = new Map();
    batchKeys = 0;
    inFlight += 1;
    applying = applying
      .then(() => options.apply(changed, position))
      .then(
        () => options.applied(),
        (error: unknown) => options.failed(error),
      )
      .finally(() => {
        inFlight -= 1;
      });
  }

  return {
    flush,
    /** A transaction committed at `position` with the keys `committed`. */
    commit(position: BinlogPosition, committed: ChangedKeys) {
      through = position;
      batchKeys += mergeCommitted(batch, committed);
      if (batchKeys >= BATCH_KEYS) flush();
      else if (!timer || (deferred && batchKeys > 0)) schedule(BATCH_MS, false);
    },
    /** Nothing waits to be applied nor is being applied. */
    idle: () => !timer && inFlight === 0,
    /** No batch waiting is applied any more (a failed client's). */
    cancel() {
      if (timer) clearTimeout(timer);
    },
    /** Settles once every batch handed to applying is applied (or failed). */
    applied: () => applying,
  };
}
