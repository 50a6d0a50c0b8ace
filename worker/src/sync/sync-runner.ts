// Runs the sync of every table on BullMQ: one queue per table with global concurrency 1, so no
// two runs of one table (sync or reconcile) ever overlap, whatever the number of worker
// processes; job schedulers asserted in sync-upkeep.ts, the one place, and kept there.
import type { SyncSource } from '#common/config.js';
import { hostname } from 'node:os';
import { Worker, type Job, type Queue } from 'bullmq';
import type { RedisClient } from '#common/redis.js';
import { throttledLog } from '#common/log-throttle.js';
import type { Logger } from '#common/logger.js';
import { tracing } from '#common/traces.js';
import { readModelPool } from '#common/databases.js';
import { foldKeptCounts } from '#read-model/kept-counts.js';
import { closeWithin, replaceStuck } from '../close-within.js';
import {
  JOBS,
  openQueue,
  changesCommittedChannel,
  TABLE_JOB_OPTIONS,
  syncQueueName,
  type TableJobData,
} from '../queues.js';
import { DEFAULT_RECONCILE_OPTIONS, reconcileTable } from './reconcile.js';
import type { RejectedRow } from '#read-model/rejects.js';
import type { SyncMetrics } from './sync-metrics.js';
import { DEFAULT_SYNC_OPTIONS, type SyncDatabases, type SyncOptions } from './sync-databases.js';
import { syncTable } from './sync-engine.js';
import { startBinlogFollower } from './binlog/binlog-follower.js';
import {
  assertSchedules,
  startUpkeep,
  tablePhase,
  type TableQueue,
  type UpkeepDeps,
} from './sync-upkeep.js';
import type { SyncTable } from '#read-model/table-definition.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import { passIntervalMs } from '#read-model/sync-health.js';

const KEPT_COUNTS_FOLD_MS = 5000;
/** This process among the workers sharing the queues. */
const WORKER_NAME = `${hostname()}:${process.pid}`;

export interface SyncRunnerDeps extends SyncDatabases {
  connection: RedisClient;
  prefix: string;
  intervalMs: number;
  reconcileIntervalMs: number;
  logger: Logger;
  metrics?: SyncMetrics;
  tables?: readonly SyncTable[];
  syncOptions?: Partial<SyncOptions>;
  /** Sync intervals without a sign of life after which a table counts as stale (default 30). */
  staleAfterIntervals?: number;
  /** How often schedulers and freshness are checked (default 5 s). */
  upkeepIntervalMs?: number;
  /** How long deletes stay in the change feed (default 30 days). */
  changesRetentionMs?: number;
  /** Where changes are learnt of (SYNC_SOURCE); binlog needs legacyUrl, the worker's own. */
  source?: SyncSource;
  legacyUrl?: string;
}

export async function startSyncRunner(deps: SyncRunnerDeps) {
  const tables = deps.tables ?? SYNC_TABLES;
  const stop = { stopping: false };
  const options = stoppable({ ...DEFAULT_SYNC_OPTIONS, ...deps.syncOptions }, stop);
  // During an outage every poll fails the same way: one line per kind and 10 s, not hundreds.
  const log = throttledLog(deps.logger);
  const following = deps.source === 'binlog';
  if (following && !deps.legacyUrl) throw new Error('SYNC_SOURCE=binlog needs the legacy URL');
  const upkeepDeps = upkeepDepsOf(deps, following, log);
  const entries: TableQueue[] = [];
  const db = withAnnouncements(deps, log);
  const source = createSourceSwitch(following ? 'binlog' : 'poll', deps, upkeepDeps, entries);
  // Stores the log's position; the tables' runs wait for it (below), so it precedes any first load.
  const follower = following
    ? await startBinlogFollower({
        ...db,
        legacyUrl: deps.legacyUrl!,
        tables,
        log,
        useSource: source.use,
        reconcileAll: (since, stopped) =>
          reconcileAll(deps.readModel, tables, entries, since, stopped),
      })
    : null;

  /** Each table's worker in this process, by table name. */
  const workers = new Map<string, Worker<TableJobData>>();
  const mayRun = follower?.positionStored ?? Promise.resolve(true);
  const openWorker = (entry: TableQueue) =>
    createTableWorker(entry.table, db, entry.queue, options, log, mayRun);
  for (const [index, table] of tables.entries()) {
    const entry = openTableQueue(table, tablePhase(index, tables.length), deps, log);
    await assertSchedules(entry, upkeepDeps);
    entries.push(entry);
    workers.set(table.name, openWorker(entry));
  }
  const replaceWorker = (name: string) => {
    const entry = entries.find((e) => e.table.name === name);
    const stuck = workers.get(name);
    if (!entry || !stuck || stop.stopping) return;
    workers.set(
      name,
      replaceStuck(stuck, () => openWorker(entry), log),
    );
  };
  const upkeep = startUpkeep(entries, upkeepDeps, follower?.queue ?? null, replaceWorker);
  const folding = startFoldingKeptCounts(deps, log);

  return {
    queues: entries.map((e) => e.queue),
    /** The table's worker in this process (a test wedges one). */
    workerOf: (table: string) => workers.get(table),
    upkeep,
    /** The source in use: binlog, or poll (configured, or while the log cannot be followed). */
    source: source.current,
    /** Stops taking jobs and waits for the ones running to finish. */
    async close() {
      stop.stopping = true;
      upkeep.stop();
      clearInterval(folding);
      // A connection Redis dropped (a restart) can fail a close; the others must still close,
      // and a run's rows and position are committed together whatever happens here.
      const closed = [
        ...(await Promise.allSettled([follower?.close()])),
        ...(await Promise.allSettled([...workers.values()].map((w) => closeWithin(w, log)))),
        ...(await Promise.allSettled(entries.map((e) => closeWithin(e.queue, log)))),
      ];
      for (const result of closed) {
        if (result.status === 'rejected') {
          log('warn', 'close', { err: result.reason as unknown }, 'a queue did not close cleanly');
        }
      }
    },
  };
}

type Log = ReturnType<typeof throttledLog>;

/**
 * A stopping worker ends each run at its next batch boundary: the batch's rows and position
 * commit together, so the next run (here after a restart, or on another worker) resumes
 * exactly there. The engine reads its budget before every batch; stopping makes it zero.
 */
function stoppable(configured: SyncOptions, stop: { stopping: boolean }): SyncOptions {
  return {
    ...configured,
    get timeBudgetMs() {
      return stop.stopping ? 0 : configured.timeBudgetMs;
    },
  };
}

function upkeepDepsOf(deps: SyncRunnerDeps, following: boolean, log: Log): UpkeepDeps {
  return {
    ...deps,
    intervalMs: passIntervalMs(following ? 'binlog' : 'poll', deps.intervalMs),
    log,
    // The normal interval's, whatever the source: while the log is followed, the log caught up
    // is every table's sign of life (sync-metrics.ts), so a dead log shows as soon as polling
    // would, not after as many of the safety net's 30 s.
    staleAfterMs: (deps.staleAfterIntervals ?? 30) * deps.intervalMs,
    upkeepIntervalMs: deps.upkeepIntervalMs ?? 5000,
  };
}

/** The engine's databases, with what a run reports: rejected rows, and commits to announce. */
function withAnnouncements(deps: SyncRunnerDeps, log: Log): SyncRunnerDeps {
  const committed = changesCommittedChannel(deps.prefix);
  return {
    ...deps,
    // Logged once per row and reason: a rejected row is retried on every pass without new lines.
    onRejected: (rows: RejectedRow[]) => {
      deps.metrics?.recordRejected(rows);
      for (const r of rows)
        deps.logger.warn({ table: r.table, id: r.id, reason: r.reason }, 'legacy row rejected');
    },
    // The webhook dispatcher, in this process or another, starts a pass at once (dispatch.ts);
    // without Redis it keeps to its interval.
    onCommitted: () => {
      deps.connection
        .publish(committed, '')
        .catch((error: unknown) =>
          log('warn', 'changes-committed', { err: error }, 'could not announce committed changes'),
        );
    },
  };
}

/**
 * The source in use, owned by the runner: the binary log's follower switches it to poll while
 * the log cannot be followed and back, and each table then polls at the normal rate or at the
 * safety net's.
 */
function createSourceSwitch(
  initial: SyncSource,
  deps: SyncRunnerDeps,
  upkeepDeps: UpkeepDeps,
  entries: readonly TableQueue[],
) {
  let source = initial;
  deps.metrics?.setSource(source);
  return {
    current: () => source,
    use: async (next: SyncSource) => {
      if (next === source) return;
      source = next;
      upkeepDeps.intervalMs = passIntervalMs(next, deps.intervalMs);
      for (const entry of entries) await assertSchedules(entry, upkeepDeps);
      deps.metrics?.setSource(next);
      deps.logger.info({ source: next }, 'sync source changed');
    },
  };
}

/** Queues a reconciliation pass of every table and waits until each has finished one. */
async function reconcileAll(
  readModel: SyncRunnerDeps['readModel'],
  tables: readonly SyncTable[],
  /** The tables' queues, filled as they open. */
  entries: readonly TableQueue[],
  since: Date,
  stopped: () => boolean,
): Promise<void> {
  const names = tables.map((t) => t.name);
  for (let round = 0; !stopped(); round += 1) {
    const done = await readModel.syncState.findMany({
      where: { table_name: { in: names }, reconciled_at: { gte: since } },
      select: { table_name: true },
    });
    const finished = new Set(done.map((d) => d.table_name));
    if (finished.size === names.length) return;
    // A pass already under way when the fallback began ends before `since`: another is queued.
    if (round % 5 === 0) {
      for (const { table, queue } of entries.filter((e) => !finished.has(e.table.name))) {
        const jobId = `fallback-${since.getTime()}-${table.name}-${round}`;
        await queue.add(
          JOBS.reconcile.name,
          { table: table.name },
          { ...TABLE_JOB_OPTIONS, jobId },
        );
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function openTableQueue(
  table: SyncTable,
  phase: number,
  deps: SyncRunnerDeps,
  log: Log,
): TableQueue {
  const queue = openQueue<TableJobData>(syncQueueName(table.name), deps.connection, deps.prefix);
  queue.on('error', (error) =>
    log('error', `queue:${table.name}`, { table: table.name, err: error }, 'sync queue error'),
  );
  return { table, queue, phase };
}

/**
 * The kept counts' deltas are folded every few seconds, so a list's total stays a sum over a
 * few rows (read-model/kept-counts.ts); any number of workers may do it at once.
 */
function startFoldingKeptCounts(deps: SyncRunnerDeps, log: Log): NodeJS.Timeout {
  return setInterval(() => {
    foldKeptCounts(readModelPool(deps.readModel)).catch((error: unknown) =>
      log('warn', 'kept-counts', { err: error }, 'could not fold kept counts'),
    );
  }, KEPT_COUNTS_FOLD_MS);
}

function createTableWorker(
  table: SyncTable,
  deps: SyncRunnerDeps,
  queue: Queue<TableJobData>,
  options: SyncOptions,
  log: ReturnType<typeof throttledLog>,
  /** True once the table's runs may start (binlog: the log's position stored), false if stopped. */
  mayRun: Promise<boolean>,
): Worker<TableJobData> {
  const data = { table: table.name };
  // With tracing on, a run is one span (`sync-table members`): its queries are its children, and
  // the member writes whose rows it reads are its links (sync-engine.ts).
  const run = (job: Job<TableJobData>) => {
    const traces = tracing();
    if (!traces) return runJob(job);
    const attributes = { 'sync.table': table.name };
    return traces.inSpan(`${job.name} ${table.name}`, 'internal', attributes, () => runJob(job));
  };
  const runJob = async (job: Job<TableJobData>) => {
    if (!(await mayRun)) return null;
    if (job.name === JOBS.reconcile.name) {
      const reconciled = await reconcileTable(table, deps, {
        ...DEFAULT_RECONCILE_OPTIONS,
        ...(deps.changesRetentionMs ? { deletesKeptMs: deps.changesRetentionMs } : {}),
        continueOnly: job.data.continuePass === true,
      });
      deps.metrics?.recordReconcile(reconciled);
      // The pass goes on in a job queued behind the table's waiting sync run, if any.
      if (!reconciled.passFinished) {
        await queue.add(JOBS.reconcile.name, { ...data, continuePass: true }, TABLE_JOB_OPTIONS);
      }
      return reconciled;
    }
    const result = await syncTable(table, deps, options);
    deps.metrics?.recordRun(result);
    return result;
  };
  const worker = new Worker<TableJobData>(syncQueueName(table.name), run, {
    connection: deps.connection,
    prefix: deps.prefix,
    concurrency: 1,
    // Stored on every job it runs (processedBy): which process synced a table, for operators.
    name: WORKER_NAME,
    // A run of a killed worker holds its table's only slot until its lock expires and the
    // stalled check hands the job back: at most 6 + 3 s here, not BullMQ's default minute.
    // The lock is renewed every 3 s; a batch never blocks the event loop that long.
    lockDuration: 6_000,
    stalledInterval: 3_000,
  });
  worker.on('failed', (job, error) => {
    deps.metrics?.recordFailure(table.name);
    const fields = { table: table.name, job: job?.name, err: error };
    log('warn', `failed:${table.name}:${job?.name}`, fields, 'sync run failed');
  });
  worker.on('error', (error) =>
    log('error', `worker:${table.name}`, { table: table.name, err: error }, 'sync worker error'),
  );
  return worker;
}
