// Freshness of each synced table, for Prometheus. Read from sync_state, because with several
// worker processes any one of them may have run a table last. The read is bounded and its last
// result kept: a scrape must answer while PostgreSQL is down, when the figures matter most.
import type { SyncSource } from '#common/config.js';
import { Counter, Gauge, Registry } from 'prom-client';
import type { ReadModelClient } from '#common/databases.js';
import { withTimeout } from '#common/with-timeout.js';
import type { ReconcileResult } from './reconcile.js';
import type { RejectedRow } from '#read-model/rejects.js';
import type { SyncRunResult } from './sync-engine.js';

const READ_TIMEOUT_MS = 1000;

/** What the binary log follower tells of itself (SYNC_SOURCE=binlog, binlog-follower.ts). */
export interface BinlogWatch {
  /** Bytes the server has logged past the position applied; read at most every few seconds. */
  bytesBehind(): Promise<number>;
  /** Unix ms of the last event or heartbeat heard from the log, if any yet. */
  lastHeardAt(): number | undefined;
  /** Unix ms the read model was last seen caught up with the log, if ever. */
  lastCaughtUpAt(): number | undefined;
}

/** What the metrics keep between scrapes, and what the runner and the follower tell them. */
interface SyncMetricsState {
  readModel: ReadModelClient;
  readFailures: Counter;
  /** Unix seconds of each table's last full catch-up, as last read (or seen in this process). */
  lastSuccess: Map<string, number>;
  /** Unix seconds of this process's last run of each table that made progress. */
  lastProgress: Map<string, number>;
  inUse: SyncSource;
  binlog: BinlogWatch | undefined;
}

export function createSyncMetrics(readModel: ReadModelClient) {
  const registry = new Registry();
  const state: SyncMetricsState = {
    readModel,
    readFailures: new Counter({
      name: 'sync_state_read_failures_total',
      help: 'Reads of sync_state that failed or timed out (the last known values were served)',
      registers: [registry],
    }),
    lastSuccess: new Map(),
    lastProgress: new Map(),
    inUse: 'poll',
    binlog: undefined,
  };
  const binlogGauges = createBinlogGauges(state);
  const source = new Gauge({
    name: 'sync_source',
    help: 'Where the worker learns of legacy changes: 1 for the source in use (poll or binlog)',
    labelNames: ['source'],
    registers: [registry],
  });
  registerFreshness(registry, state);
  const { stale, rows, failures, rejected } = createRunMetrics(registry);
  registerRejects(registry, state);
  registerReconcileLag(registry, state);
  const repaired = new Counter({
    name: 'sync_reconcile_repaired_rows_total',
    help: 'Read-model rows written or deleted by reconciliation: changes polling did not see',
    labelNames: ['table'],
    registers: [registry],
  });

  return {
    registry,
    recordRejected(rejects: RejectedRow[]) {
      for (const r of rejects) rejected.inc({ table: r.table });
    },
    recordReconcile(run: ReconcileResult) {
      repaired.inc({ table: run.table }, run.written + run.deleted);
    },
    refresh: () => refresh(state),
    /**
     * Unix seconds of the table's last known sign of life: a full catch-up by any process, or a
     * run of this process that made progress (a long backfill is syncing, not stuck).
     */
    lastActivityOf: (table: string) => lastActivityOf(state, table),
    setStale(table: string, isStale: boolean) {
      stale.set({ table }, isStale ? 1 : 0);
    },
    recordRun(run: SyncRunResult) {
      rows.inc({ table: run.table }, run.rowsWritten);
      const now = Date.now() / 1000;
      if (run.caughtUp) note(state, run.table, now);
      if (run.caughtUp || run.rowsWritten > 0) state.lastProgress.set(run.table, now);
    },
    recordFailure(table: string) {
      failures.inc({ table });
    },
    setSource(next: SyncSource) {
      state.inUse = next;
      source.set({ source: 'poll' }, next === 'poll' ? 1 : 0);
      source.set({ source: 'binlog' }, next === 'binlog' ? 1 : 0);
    },
    /** The follower's figures: bytes behind and seconds since its last event, from now on. */
    watchBinlog(watch: BinlogWatch) {
      if (!state.binlog) for (const gauge of binlogGauges) registry.registerMetric(gauge);
      state.binlog = watch;
    },
  };
}

const note = (state: SyncMetricsState, table: string, at: number) =>
  state.lastSuccess.set(table, Math.max(at, state.lastSuccess.get(table) ?? 0));

/** Refreshes lastSuccess from PostgreSQL; false when it could not (values stay as they were). */
async function refresh(state: SyncMetricsState): Promise<boolean> {
  try {
    const states = await withTimeout(
      state.readModel.syncState.findMany({ select: { table_name: true, synced_at: true } }),
      READ_TIMEOUT_MS,
    );
    for (const s of states)
      if (s.synced_at) note(state, s.table_name, s.synced_at.getTime() / 1000);
    return true;
  } catch {
    state.readFailures.inc();
    return false;
  }
}

function lastActivityOf(state: SyncMetricsState, table: string): number | undefined {
  // While the log is followed, tables are polled only every 30 s: the log caught up (a batch
  // applied, or a heartbeat with nothing pending) is every table's sign of life.
  const caughtUp = state.inUse === 'binlog' ? state.binlog?.lastCaughtUpAt() : undefined;
  const times = [
    state.lastSuccess.get(table),
    state.lastProgress.get(table),
    caughtUp === undefined ? undefined : caughtUp / 1000,
  ].filter((t) => t !== undefined);
  return times.length > 0 ? Math.max(...times) : undefined;
}

/** Registered only once a follower reports (watchBinlog): a worker that polls shows neither. */
function createBinlogGauges(state: SyncMetricsState): Gauge[] {
  const bytesBehind = new Gauge({
    name: 'sync_binlog_bytes_behind',
    help: 'Bytes of binary log the legacy server has written past the position applied',
    registers: [],
    async collect() {
      try {
        if (state.binlog) this.set(await withTimeout(state.binlog.bytesBehind(), READ_TIMEOUT_MS));
      } catch {
        // The last value stays: the server does not answer, and the silence metric tells.
      }
    },
  });
  const sinceEvent = new Gauge({
    name: 'sync_binlog_seconds_since_event',
    help: 'Seconds since the binary log last sent an event or a heartbeat (one a second idle)',
    registers: [],
    collect() {
      const at = state.binlog?.lastHeardAt();
      if (at !== undefined) this.set(Math.max(0, (Date.now() - at) / 1000));
    },
  });
  return [bytesBehind, sinceEvent];
}

/** Each table's last full catch-up, and the seconds since. */
function registerFreshness(registry: Registry, state: SyncMetricsState): void {
  new Gauge({
    name: 'sync_last_success_timestamp_seconds',
    help: 'When the table was last brought fully up to date (Unix seconds)',
    labelNames: ['table'],
    registers: [registry],
    async collect() {
      await refresh(state);
      for (const [table, at] of state.lastSuccess) this.set({ table }, at);
    },
  });
  new Gauge({
    name: 'sync_lag_seconds',
    help: 'Seconds since the table was last brought fully up to date',
    labelNames: ['table'],
    registers: [registry],
    collect() {
      const now = Date.now() / 1000;
      for (const [table, at] of state.lastSuccess) this.set({ table }, Math.max(0, now - at));
    },
  });
}

/** What the runner reports of each run: staleness, rows written, failures, rows set aside. */
function createRunMetrics(registry: Registry) {
  const stale = new Gauge({
    name: 'sync_table_stale',
    help: '1 while the table has not synced for SYNC_STALE_AFTER_INTERVALS intervals, else 0',
    labelNames: ['table'],
    registers: [registry],
  });
  const rows = new Counter({
    name: 'sync_rows_written_total',
    help: 'Read-model rows inserted, updated or deleted by this process',
    labelNames: ['table'],
    registers: [registry],
  });
  const failures = new Counter({
    name: 'sync_failures_total',
    help: 'Failed sync runs in this process',
    labelNames: ['table'],
    registers: [registry],
  });
  const rejected = new Counter({
    name: 'sync_rejected_rows_total',
    help: 'Legacy rows set aside as unrepresentable by this process (each counted once per reason)',
    labelNames: ['table'],
    registers: [registry],
  });
  return { stale, rows, failures, rejected };
}

/** The rows currently set aside, per table, read at each scrape. */
function registerRejects(registry: Registry, state: SyncMetricsState): void {
  new Gauge({
    name: 'sync_rejects',
    help: 'Legacy rows currently set aside in sync_rejects',
    labelNames: ['table'],
    registers: [registry],
    async collect() {
      try {
        const counts = await withTimeout(
          state.readModel.syncReject.groupBy({ by: ['table_name'], _count: true }),
          READ_TIMEOUT_MS,
        );
        this.reset();
        for (const c of counts) this.set({ table: c.table_name }, c._count);
      } catch {
        state.readFailures.inc();
      }
    },
  });
}

/** Seconds since each table's last complete reconciliation pass started, read at each scrape. */
function registerReconcileLag(registry: Registry, state: SyncMetricsState): void {
  /** When each table's last complete reconciliation pass started, as last read. */
  const reconciledAt = new Map<string, Date>();
  new Gauge({
    name: 'sync_reconcile_lag_seconds',
    help:
      'Seconds since the last complete reconciliation pass of the table started: the bound on ' +
      'how stale a change invisible to polling (a kept updated_at, a hard delete) can be',
    labelNames: ['table'],
    registers: [registry],
    async collect() {
      try {
        const states = await withTimeout(
          state.readModel.syncState.findMany({ select: { table_name: true, reconciled_at: true } }),
          READ_TIMEOUT_MS,
        );
        for (const s of states)
          if (s.reconciled_at) reconciledAt.set(s.table_name, s.reconciled_at);
      } catch {
        state.readFailures.inc();
      }
      const now = Date.now();
      for (const [table, at] of reconciledAt)
        this.set({ table }, Math.max(0, (now - at.getTime()) / 1000));
    },
  });
}

export type SyncMetrics = ReturnType<typeof createSyncMetrics>;
