// Queue and job names, payloads and default options: declared once, here; and the one way the
// worker opens a queue.
import { Queue, type JobsOptions } from 'bullmq';
import type { RedisClient } from '#common/redis.js';

/**
 * One queue per synced table, so that a table's sync and reconcile runs never overlap. The braces
 * are a Redis Cluster hash tag: BullMQ's scripts touch several keys of one queue at once, which a
 * cluster allows only within one slot, and one tag per queue spreads the queues over the masters.
 */
export const syncQueueName = (table: string) => `{sync-${table}}`;

/**
 * Every queue's stream of job events, in entries. Nothing here reads it (no QueueEvents), and
 * BullMQ's default of 10,000 entries a queue is about 17 MB of Redis over the 15 queues, filled
 * over the first hour at a sync job a second: a soak saw Redis grow 2.3 MB every 5 minutes. A
 * short stream still serves someone watching the queue live.
 */
export const QUEUE_STREAMS = { events: { maxLen: 100 } };

/** Each connection's open queues, whose options are written again when it reconnects. */
const queuesOf = new WeakMap<RedisClient, Set<Queue>>();

/**
 * A queue of the worker's, with a short stream of events. BullMQ writes a queue's options (the
 * stream's cap among them) into Redis when the queue object is made; a Redis that restarts empty
 * loses them, and BullMQ's scripts then write the default back (10,000 events a queue, about
 * 17 MB over the worker's queues), so until the process restarted, Redis grew after every such
 * restart (a soak with faults saw 7.5 → 12.4 MB). The options are written again whenever the
 * connection is ready after a reconnect, as the job schedulers are (sync-upkeep.ts).
 */
export function openQueue<Data>(name: string, connection: RedisClient, prefix: string) {
  const queue = new Queue<Data>(name, { connection, prefix, streams: QUEUE_STREAMS });
  let queues = queuesOf.get(connection);
  if (!queues) {
    const open = new Set<Queue>();
    connection.on('ready', () => {
      for (const q of open) {
        if (q.closing) open.delete(q);
        else
          q.getBackend()
            .setQueueMeta(q.metaValues)
            .catch(() => undefined);
      }
    });
    queuesOf.set(connection, (queues = open));
  }
  // A queue closed since (the binary log follower's, at each start) leaves the set here.
  for (const q of queues) if (q.closing) queues.delete(q);
  queues.add(queue);
  return queue;
}

export const JOBS = {
  sync: {
    name: 'sync-table',
    schedulerId: (table: string) => `sync-${table}`,
    /** The run a worker's start asks for besides the schedule (sync-upkeep.ts), one at a time. */
    onceId: (table: string) => `sync-${table}-now`,
  },
  reconcile: { name: 'reconcile-table', schedulerId: (table: string) => `reconcile-${table}` },
} as const;
export type JobKind = keyof typeof JOBS;

export interface TableJobData {
  table: string;
  /** A reconcile job queued to go on with a pass: it never starts a new one. */
  continuePass?: boolean;
}

export const TABLE_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  // Keep recent history visible for operators; failed jobs longer than completed ones.
  removeOnComplete: { count: 200 },
  removeOnFail: { count: 1000 },
};

/**
 * Webhook deliveries (worker/src/webhooks/delivery.ts): a job carries tries of events, the first
 * tries of a dispatched page in batches, a retry or a sweep's re-queue one event at a time.
 */
export const WEBHOOK_QUEUE = '{webhooks}';

/**
 * The Redis channel the sync publishes on after each transaction that wrote to the read model (a
 * poll's batch, a batch of the binary log): the webhook dispatcher starts a pass on it rather than
 * at the end of its interval.
 */
export const changesCommittedChannel = (prefix: string) => `${prefix}:changes-committed`;
export const DELIVER_JOB = {
  name: 'deliver-events',
  /** First tries of a dispatched page: events are numbered in a page, so the first and count. */
  batchId: (firstEventId: string, count: number) => `b${firstEventId}-${count}`,
  /** One id per try: a try queued twice (by a retry, then the sweep) runs once. */
  id: (eventId: bigint | string, attempt: number) => `e${eventId}-a${attempt}`,
  /** A try its subscription's share turned away, queued again for `at` (ms since the epoch). */
  waitId: (eventId: string, attempt: number, at: number) => `e${eventId}-a${attempt}-w${at}`,
} as const;
/** First tries per job: one event row read, one statement recording them all. */
export const DELIVER_BATCH = 50;

export interface DeliverJobData {
  eventIds: string[];
}

export const DELIVER_JOB_OPTIONS: JobsOptions = {
  // The event row is the record of its tries; the job only carries one of them out. A job that
  // fails (PostgreSQL down) is tried again by BullMQ, and after that by the sweep.
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: true,
};

/**
 * The binary log follower (SYNC_SOURCE=binlog): one job at a time across all workers, restarted
 * by its scheduler when it ends (worker/src/sync/binlog/binlog-follower.ts).
 */
export const BINLOG_QUEUE = '{sync-binlog}';
export const BINLOG_JOB = { name: 'follow-binlog', schedulerId: 'follow-binlog' } as const;
