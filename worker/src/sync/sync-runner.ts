// Runs the sync of every table on BullMQ: one queue per table, a job scheduler per queue
// (upserted here, the one place), global concurrency 1 so that no two runs of one table ever
// overlap, whatever the number of worker processes.
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { LegacyClient, ReadModelClient } from '../../../common/databases.js';
import type { Logger } from '../../../common/logger.js';
import {
  SYNC_JOB_NAME,
  SYNC_JOB_OPTIONS,
  syncQueueName,
  syncSchedulerId,
  type SyncJobData,
} from '../queues.js';
import type { SyncMetrics } from './sync-metrics.js';
import { DEFAULT_SYNC_OPTIONS, syncTable, type SyncOptions } from './sync-engine.js';
import type { SyncTable } from './table-definition.js';
import { SYNC_TABLES } from './tables/index.js';

export interface SyncRunnerDeps {
  legacy: LegacyClient;
  readModel: ReadModelClient;
  connection: Redis;
  prefix: string;
  intervalMs: number;
  logger: Logger;
  metrics?: SyncMetrics;
  tables?: readonly SyncTable[];
  syncOptions?: Partial<SyncOptions>;
}

export async function startSyncRunner(deps: SyncRunnerDeps) {
  const tables = deps.tables ?? SYNC_TABLES;
  const options = { ...DEFAULT_SYNC_OPTIONS, ...deps.syncOptions };
  const queues: Queue[] = [];
  const workers: Worker[] = [];

  for (const table of tables) {
    const name = syncQueueName(table.name);
    const queue = new Queue<SyncJobData>(name, {
      connection: deps.connection,
      prefix: deps.prefix,
    });
    await queue.setGlobalConcurrency(1);
    await queue.upsertJobScheduler(
      syncSchedulerId(table.name),
      { every: deps.intervalMs },
      { name: SYNC_JOB_NAME, data: { table: table.name }, opts: SYNC_JOB_OPTIONS },
    );
    queues.push(queue);

    const worker = new Worker<SyncJobData>(
      name,
      async () => {
        const run = await syncTable(table, deps, options);
        deps.metrics?.recordRun(run);
        return run;
      },
      { connection: deps.connection, prefix: deps.prefix, concurrency: 1 },
    );
    worker.on('failed', (job, error) => {
      deps.metrics?.recordFailure(table.name);
      deps.logger.warn({ table: table.name, job: job?.id, err: error }, 'sync run failed');
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
