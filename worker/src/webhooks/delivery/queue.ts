// The queue's side of delivery: BullMQ carries tries, never their state. A dispatched page's
// first tries go in jobs of 50, each retry in a job of its own whose id comes from the event and
// the try's number.
import {
  DELIVER_BATCH,
  DELIVER_JOB,
  DELIVER_JOB_OPTIONS,
  type DeliverJobData,
} from '../../queues.js';
import type { Queue } from 'bullmq';
import type { Deliverer, QueuedTry } from './deliverer.js';

/**
 * The jobs that carry tries: `batch`, first tries of one page; otherwise one job per event's try.
 * A try its subscription's share turned away (`waitUntil`) gets a job of its own, not the try's
 * id: the job that turned it away still holds that id.
 */
export function deliverJobs(
  tries: readonly QueuedTry[],
  options: { batch?: boolean },
): { ids: string[]; jobId: string; delay: number }[] {
  const jobs = [];
  if (options.batch) {
    for (let i = 0; i < tries.length; i += DELIVER_BATCH) {
      const ids = tries.slice(i, i + DELIVER_BATCH).map((t) => t.id);
      jobs.push({ ids, jobId: DELIVER_JOB.batchId(ids[0]!, ids.length), delay: 0 });
    }
  } else {
    for (const t of tries) {
      const jobId =
        t.waitUntil === undefined
          ? DELIVER_JOB.id(t.id, t.attempt)
          : DELIVER_JOB.waitId(t.id, t.attempt, t.waitUntil);
      jobs.push({ ids: [t.id], jobId, delay: t.delayMs ?? 0 });
    }
  }
  return jobs;
}

/** Queues tries, in the jobs deliverJobs gives them. */
export async function enqueue(
  d: Pick<Deliverer, 'queue'>,
  tries: readonly QueuedTry[],
  options: { batch?: boolean } = {},
) {
  if (tries.length === 0) return;
  const jobs = deliverJobs(tries, options);
  await d.queue.addBulk(
    jobs.map((job) => ({
      name: DELIVER_JOB.name,
      data: { eventIds: job.ids },
      opts: {
        ...DELIVER_JOB_OPTIONS,
        jobId: job.jobId,
        ...(job.delay ? { delay: job.delay } : {}),
      },
    })),
  );
}

/**
 * When the oldest job still waiting in the queue was due, if one is waiting. Every event due
 * before it was taken by a worker (or lost); one due after it may be in a job still waiting.
 */
export async function queueHead(queue: Queue<DeliverJobData>): Promise<Date | null> {
  const [oldest] = await queue.getJobs(['wait'], 0, 0, true);
  return oldest ? new Date(oldest.timestamp + (oldest.opts.delay ?? 0)) : null;
}
