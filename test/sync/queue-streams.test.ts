// Nothing reads BullMQ's streams of job events, and by default each queue keeps 10,000 of them:
// Redis would grow through a worker's first hour (a soak saw 2.3 MB every 5 minutes). Every queue
// the worker makes keeps a short stream (QUEUE_STREAMS, worker/src/queues.ts), also after a Redis
// restarted empty (a private server here) took the queues' options with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type RedisClient } from '#common/redis.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import { QUEUE_STREAMS, WEBHOOK_QUEUE, syncQueueName } from '../../worker/src/queues.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { SpareRedis } from '../support/spare-redis.js';
import { eventually } from '../support/eventually.js';
import { startWebhookWorker, startWorker } from '../support/worker.js';

/** Redis trims a stream by whole nodes of 100 entries (`~`): the bound is the cap and a node. */
const KEPT_AT_MOST = QUEUE_STREAMS.events.maxLen + 100;

let env: TestEnvironment;
let redis: RedisClient;

beforeAll(async () => {
  env = await createTestEnvironment();
  redis = createRedis(env.redisUrl, {});
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await env?.destroy();
});

/** Entries a stream holds now, and entries ever added to it. */
async function streamOf(
  queue: string,
  on: RedisClient = redis,
): Promise<{ length: number; added: number }> {
  const info = (await on.xinfo('STREAM', `${env.redisPrefix}:${queue}:events`)) as unknown[];
  const field = (name: string) => Number(info[info.indexOf(name) + 1]);
  return { length: field('length'), added: field('entries-added') };
}

describe('queue event streams', () => {
  it('when the sync has run hundreds of jobs a table, then each queue keeps a short stream of their events', async () => {
    // A job every 20 ms a table: several events each (added, active, completed), hundreds in
    // seconds, where the default would keep them all.
    const worker = await startWorker(env, { intervalMs: 20, reconcileIntervalMs: 200 });
    const webhooks = await startWebhookWorker(env, {});
    try {
      const queues = SYNC_TABLES.map((t) => syncQueueName(t.name));
      await eventually(
        async () => {
          for (const queue of queues) {
            expect((await streamOf(queue)).added).toBeGreaterThan(3 * KEPT_AT_MOST);
          }
        },
        60_000,
        500,
      );
      for (const queue of queues) {
        expect((await streamOf(queue)).length).toBeLessThanOrEqual(KEPT_AT_MOST);
      }
      // The delivery queue keeps the same cap (it has no jobs here: no subscription).
      await eventually(async () =>
        expect(
          await redis.hget(`${env.redisPrefix}:${WEBHOOK_QUEUE}:meta`, 'opts.maxLenEvents'),
        ).toBe(String(QUEUE_STREAMS.events.maxLen)),
      );
    } finally {
      await webhooks.close();
      await worker.close();
    }
  }, 120_000);

  it('when Redis restarts empty under a running worker, then its queues keep short streams without a restart', async () => {
    const spare = await SpareRedis.start();
    const settings = { REDIS_URL: spare.url };
    const worker = await startWorker(env, { intervalMs: 20, reconcileIntervalMs: 200, settings });
    const webhooks = await startWebhookWorker(env, settings);
    const probe = createRedis(spare.url, {});
    const queues = [...SYNC_TABLES.map((t) => syncQueueName(t.name)), WEBHOOK_QUEUE];
    const capOf = (queue: string) =>
      probe.hget(`${env.redisPrefix}:${queue}:meta`, 'opts.maxLenEvents');
    try {
      await eventually(async () => expect(await capOf(WEBHOOK_QUEUE)).not.toBeNull());
      await spare.stop();
      await spare.start();
      // BullMQ's scripts write their default (10,000) into a queue's emptied options; the
      // worker writes its own back once it is connected again.
      await eventually(
        async () => {
          for (const queue of queues)
            expect(await capOf(queue)).toBe(String(QUEUE_STREAMS.events.maxLen));
        },
        30_000,
        200,
      );
      const sync = queues.filter((q) => q !== WEBHOOK_QUEUE);
      await eventually(
        async () => {
          for (const queue of sync)
            expect((await streamOf(queue, probe)).added).toBeGreaterThan(3 * KEPT_AT_MOST);
        },
        60_000,
        500,
      );
      for (const queue of sync)
        expect((await streamOf(queue, probe)).length).toBeLessThanOrEqual(KEPT_AT_MOST);
    } finally {
      probe.disconnect();
      await webhooks.close();
      await worker.close();
      await spare.destroy();
    }
  }, 120_000);
});
