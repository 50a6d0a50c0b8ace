// Runs the sync of every table on BullMQ: one queue per table with global concurrency 1, so no
// two runs of one table (sync or reconcile) ever overlap, whatever the number of worker
// processes; job schedulers upserted here, the one place.
import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../../../common/logger.js';
import { JOBS, TABLE_JOB_OPTIONS, syncQueueName, type TableJobData } from '../queues.js';
import { DEFAULT_RECONCILE_OPTIONS, reconcileTable } from './reconcile.js';
import type { RejectedRow } from './rejects.js';
import type { SyncMetrics } from './sync-metrics.js';
import {
  DEFAULT_SYNC_OPTIONS,
  syncTable,
  type SyncDatabases,
  type SyncOptions,
} from './sync-engine.js';
import type { SyncTable } from './table-definition.js';
import { SYNC_TABLES } from './tables/index.js';

export interface SyncRunnerDeps extends SyncDatabases {
  connection: Redis;
  prefix: string;
  intervalMs: number;
  reconcileIntervalMs: number;
  logger: Logger;
  metrics?: SyncMetrics;
  tables?: readonly SyncTable[];
  syncOptions?: Partial<SyncOptions>;
}

export async function startSyncRunner(deps: SyncRunnerDeps) {
  const tables = deps.tables ?? SYNC_TABLES;
  const options = { ...DEFAULT_SYNC_OPTIONS, ...deps.syncOptions };
  const queues: Queue<TableJobData>[] = [];
  // Logged once per row and reason: a rejected row is retried on every pass without new lines.
  const db = {
    ...deps,
    onRejected: (rows: RejectedRow[]) => {
      deps.metrics?.recordRejected(rows);
      for (const r of rows)
        deps.logger.warn({ table: r.table, id: r.id, reason: r.reason }, 'legacy row rejected');
    },
  };
  const workers: Worker<TableJobData>[] = [];

  for (const table of tables) {
    const queue = new Queue<TableJobData>(syncQueueName(table.name), {
      connection: deps.connection,
      prefix: deps.prefix,
    });
    await queue.setGlobalConcurrency(1);
    const data = { table: table.name };
    await queue.upsertJobScheduler(
      JOBS.sync.schedulerId(table.name),
      { every: deps.intervalMs },
      { name: JOBS.sync.name, data, opts: TABLE_JOB_OPTIONS },
    );
    await queue.upsertJobScheduler(
      JOBS.reconcile.schedulerId(table.name),
      { every: deps.reconcileIntervalMs },
      { name: JOBS.reconcile.name, data, opts: TABLE_JOB_OPTIONS },
    );
    queues.push(queue);

    const run = async (job: Job<TableJobData>) => {
      if (job.name === JOBS.reconcile.name) {
        const reconciled = await reconcileTable(table, db, {
          ...DEFAULT_RECONCILE_OPTIONS,
          continueOnly: job.data.continuePass === true,
        });
        deps.metrics?.recordReconcile(reconciled);
        // The pass goes on in a job queued behind the table's waiting sync run, if any.
        if (!reconciled.passFinished) await queue.add(JOBS.reconcile.name, data, TABLE_JOB_OPTIONS);
        return reconciled;
      }
      const result = await syncTable(table, db, options);
      deps.metrics?.recordRun(result);
      return result;
    };
    const worker = new Worker<TableJobData>(syncQueueName(table.name), run, {
      connection: deps.connection,
      prefix: deps.prefix,
      concurrency: 1,
      // A run of a killed worker holds its table's only slot until its lock expires and the
      // stalled check hands the job back: keep that to seconds, not BullMQ's default minute.
      lockDuration: 10_000,
      stalledInterval: 5_000,
    });
    worker.on('failed', (job, error) => {
      deps.metrics?.recordFailure(table.name);
      deps.logger.warn({ table: table.name, job: job?.name, err: error }, 'sync run failed');
    });
    worker.on('error', (error) =>
      deps.logger.error({ table: table.name, err: error }, 'sync worker error'),
    );
    workers.push(worker);
  }

  return {
    queues,
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await Promise.all(queues.map((q) => q.close()));
    },
  };
}
