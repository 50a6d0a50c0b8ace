// What a sync run is given: the two databases with the run's listeners, and its options. Apart
// from the engine, so the first load, reconciliation and the binary log's follower can name them.
import type { ReadModelClient } from '#common/databases.js';
import type { LegacyClient } from '#common/legacy-database.js';
import type { RejectListener } from '#read-model/rejects.js';
import type { SyncTable } from '#read-model/table-definition.js';

export interface SyncOptions {
  /** Seconds behind legacy "now" that the stored position stays, for late commits. */
  lookbackSeconds: number;
  batchSize: number;
  /** A run stops after this long even if not caught up; the next run resumes from the position. */
  timeBudgetMs: number;
}

export const DEFAULT_SYNC_OPTIONS: SyncOptions = {
  lookbackSeconds: 10,
  batchSize: 5000,
  timeBudgetMs: 20_000,
};

export interface SyncDatabases {
  legacy: LegacyClient;
  readModel: ReadModelClient;
  /** Told of newly rejected rows, to count and log them (rejects.ts). */
  onRejected?: RejectListener;
  /**
   * Awaited after each legacy read of a table's rows, before they are written: lets a test hold
   * a read's rows while other writes happen (test/sync/read-model-order.timed.test.ts).
   */
  afterRead?: (table: SyncTable) => Promise<void>;
  /** Told after each transaction that wrote rows of the read model (it has committed). */
  onCommitted?: () => void;
}
