// The tables take turns: each table's reconciliation pass starts at a phase of the interval of
// its own, so a minute holds fourteen small reconciliation passes, not one burst of
// all of them (docs/decisions/0018). Schedulers stored before tables took turns are moved.
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type RedisClient } from '#common/redis.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import { JOBS, QUEUE_STREAMS, syncQueueName, type TableJobData } from '../../worker/src/queues.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { eventually } from '../support/eventually.js';
import { startWorker } from '../support/worker.js';

const RECONCILE_MS = 7000;

let env: TestEnvironment;
let connection: RedisClient;
let queues: Queue<TableJobData>[];

beforeAll(async () => {
  env = await createTestEnvironment();
  connection = createRedis(env.config().redis.url, { forWorker: true });
  queues = SYNC_TABLES.map(
    (table) =>
      new Queue<TableJobData>(syncQueueName(table.name), {
        connection,
        prefix: env.config().redis.prefix,
        streams: QUEUE_STREAMS,
      }),
  );
});

afterAll(async () => {
  await Promise.allSettled((queues ?? []).map((q) => q.close()));
  connection?.disconnect();
  await env?.destroy();
});

/** Each table's reconcile scheduler's next run, as a phase of the interval (0 ≤ phase < every). */
async function phases(every: number): Promise<number[]> {
  return Promise.all(
    SYNC_TABLES.map(async (table, i) => {
      const scheduler = await queues[i]!.getJobScheduler(JOBS.reconcile.schedulerId(table.name));
      expect(scheduler?.every).toBe(every);
      return Number(scheduler!.next) % every;
    }),
  );
}

/** The smallest distance between two phases, around the circle of one interval. */
function smallestGap(values: number[], every: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const gaps = sorted.slice(1).map((v, i) => v - sorted[i]!);
  return Math.min(...gaps, sorted[0]! + every - sorted.at(-1)!);
}

describe('tables take turns', () => {
  it('when a worker starts, then each table runs at its own phase and passes come one after another', async () => {
    const startedAt = Date.now();
    const worker = await startWorker(env, { reconcileIntervalMs: RECONCILE_MS });
    try {
      const spacing = RECONCILE_MS / SYNC_TABLES.length;
      expect(smallestGap(await phases(RECONCILE_MS), RECONCILE_MS)).toBeGreaterThan(spacing * 0.9);
      // What ran: each table's first reconciliation job, by when it started.
      const firstRuns = await eventually(
        () =>
          Promise.all(
            queues.map(async (queue) => {
              const done = await queue.getJobs(['completed', 'active'], 0, 200);
              const starts = done
                .filter((j) => j.name === JOBS.reconcile.name && j.processedOn)
                .map((j) => j.processedOn!);
              expect(starts.length).toBeGreaterThan(0);
              return Math.min(...starts);
            }),
          ),
        2 * RECONCILE_MS,
      );
      for (const at of firstRuns) expect(at).toBeGreaterThanOrEqual(startedAt);
      // All at once, they would start within a few hundred ms of each other.
      expect(Math.max(...firstRuns) - Math.min(...firstRuns)).toBeGreaterThan(RECONCILE_MS / 2);
    } finally {
      await worker.close();
    }
  });

  it('when schedulers were stored together at one phase, then a starting worker spreads them', async () => {
    const every = 60_000;
    await Promise.all(
      SYNC_TABLES.map(async (table, i) => {
        const id = JOBS.reconcile.schedulerId(table.name);
        await queues[i]!.removeJobScheduler(id);
        await queues[i]!.upsertJobScheduler(
          id,
          { every },
          { name: JOBS.reconcile.name, data: { table: table.name } },
        );
      }),
    );
    expect(smallestGap(await phases(every), every)).toBeLessThan(1000);
    const worker = await startWorker(env, { reconcileIntervalMs: every });
    try {
      expect(smallestGap(await phases(every), every)).toBeGreaterThan(
        (every / SYNC_TABLES.length) * 0.9,
      );
    } finally {
      await worker.close();
    }
  });
});
