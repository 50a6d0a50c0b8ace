// Delivers webhook events (decision 0012). PostgreSQL holds every event and its state; BullMQ
// only carries out tries (delivery/queue.ts). A sweep re-queues every pending event whose try is
// overdue, so no event is lost; a try cut short may be made again: at least once
// (delivery/sweep.ts). Each try goes through its subscription's share (shares.ts). This file
// starts the process's part; the parts are in delivery/: which events are due (due.ts), a job's
// tries (tries.ts), what an answer means (policy.ts), what the tries leave in PostgreSQL
// (record.ts), and what they share (deliverer.ts).
import { Worker, type Job } from 'bullmq';
import pLimit from 'p-limit';
import { createRecipientsRecorder } from '#api/recipients.js';
import type { TryResult } from '#api/webhooks/send.js';
import { closeWithin, replaceStuck } from '../close-within.js';
import { openQueue, WEBHOOK_QUEUE, type DeliverJobData } from '../queues.js';
import { createShares } from './shares.js';
import type { Deliverer, DeliveryDeps, QueuedTry } from './delivery/deliverer.js';
import { enqueue, queueHead } from './delivery/queue.js';
import { sweep, untakenWatch } from './delivery/sweep.js';
import { deliver } from './delivery/tries.js';

export type { DeliveryDeps } from './delivery/deliverer.js';

export function startDelivery(deps: DeliveryDeps) {
  const queue = openQueue<DeliverJobData>(WEBHOOK_QUEUE, deps.connection, deps.prefix);
  queue.on('error', (error) => deps.log('warn', 'webhook-queue', { err: error }, 'queue error'));
  const deliverer: Deliverer = {
    ...deps,
    queue,
    sending: pLimit(deps.concurrency),
    shares: createShares({
      perSubscription: deps.subscriptionConcurrency,
      most: deps.concurrency,
      timeoutMs: deps.timeoutMs,
      backOffMs: deps.backOffMs,
    }),
    taken: new Set(),
    recipients: createRecipientsRecorder(deps.pool),
  };
  let worker = startWorker(deliverer);
  /** The worker replaced when due tries have not been taken for two sweeps (sweep.ts). */
  const replaceIfUntaken = untakenWatch(deliverer, () => {
    worker = replaceStuck(worker, () => startWorker(deliverer), deps.log);
  });
  return {
    queue,
    enqueue: (tries: readonly QueuedTry[], options: { batch?: boolean } = {}) =>
      enqueue(deliverer, tries, options),
    async sweep() {
      const head = await queueHead(queue);
      await replaceIfUntaken(head);
      return sweep(deliverer, head);
    },
    /** This process's consumer of the queue (a test wedges it). */
    worker: () => worker,
    async close() {
      await closeWithin(worker, deps.log);
      await closeWithin(queue, deps.log);
    },
  };
}

export type Delivery = ReturnType<typeof startDelivery>;
export type { TryResult };

function startWorker(d: Deliverer) {
  const worker = new Worker<DeliverJobData>(
    WEBHOOK_QUEUE,
    (job: Job<DeliverJobData>) => deliver(d, job.data.eventIds),
    {
      connection: d.connection,
      prefix: d.prefix,
      concurrency: d.concurrency,
      // A try of a killed process is taken up again within seconds: its lock (renewed while
      // the try runs) expires, and the stalled check hands the job on.
      lockDuration: 10_000,
      stalledInterval: 5_000,
    },
  );
  worker.on('error', (error) => d.log('warn', 'webhook-worker', { err: error }, 'worker error'));
  worker.on('failed', (job, error) =>
    d.log('warn', 'webhook-try', { err: error, events: job?.data.eventIds }, 'tries failed'),
  );
  return worker;
}
