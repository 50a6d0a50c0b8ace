// Delivers webhook events (decision 0012). PostgreSQL holds every event and its state; BullMQ
// only carries out tries: one job per try, its id derived from the event and the try's number.
// A sweep re-queues every pending event whose try is overdue, so a Redis that lost its data, or
// a process killed mid-try, loses no event; a try cut short may be made again (at least once).
import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { Webhook } from 'standardwebhooks';
import type { throttledLog } from '../../../common/log-throttle.js';
import { closeWithin } from '../close-within.js';
import { DELIVER_JOB, DELIVER_JOB_OPTIONS, WEBHOOK_QUEUE, type DeliverJobData } from '../queues.js';
import { nextDelayMs, retryAfterMs } from './retry.js';
import type { Sender, TryResult } from './send.js';
import type { WebhookMetrics } from './webhook-metrics.js';

/** A subscription failing every try for this long is disabled. */
export const FAILING_DISABLE_MS = 5 * 86_400_000;
const SWEEP_BATCH = 1000;
/** A pending event this late past its try is taken as lost by the queue and queued again. */
const SWEEP_GRACE_SECONDS = 5;

export interface DeliveryDeps {
  pool: pg.Pool;
  connection: Redis;
  prefix: string;
  sender: Sender;
  retryScheduleMs: readonly number[];
  concurrency: number;
  metrics: WebhookMetrics;
  log: ReturnType<typeof throttledLog>;
}

interface EventToSend {
  id: string;
  message_id: string;
  body: string;
  status: string;
  attempts: number;
  changed_at: Date;
  subscription_id: number;
  url: string;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  failing_since: Date | null;
}

const EVENT_TO_SEND = `
  SELECT e.id::text, e.message_id, e.body, e.status, e.attempts, e.changed_at,
         s.id AS subscription_id, s.url, s.enabled, s.failing_since,
         s.secret, s.previous_secret, s.previous_secret_until
    FROM webhook_events e JOIN webhook_subscriptions s ON s.id = e.subscription_id
   WHERE e.id = $1`;

/** The secrets that sign now: the current one, and the previous one within its 24 hours. */
function secretsOf(event: EventToSend, now: number): string[] {
  const previousValid =
    event.previous_secret !== null &&
    event.previous_secret_until !== null &&
    event.previous_secret_until.getTime() > now;
  return previousValid ? [event.secret, event.previous_secret!] : [event.secret];
}

// One statement: the try is recorded, the event moves on, the subscription's failing state and
// any disable follow; a try made twice (a job run again) records twice, harmlessly.
const RECORD_TRY = `
  WITH attempt AS (
    INSERT INTO webhook_attempts (event_id, subscription_id, outcome, status_code, duration_ms, response)
    VALUES ($1, $2, $3, $4, $5, $6)
  ), event AS (
    UPDATE webhook_events
       SET attempts = attempts + 1, status = $7, next_attempt_at = $8,
           delivered_at = CASE WHEN $7 = 'delivered' THEN now() END
     WHERE id = $1 AND status = 'pending'
  )
  UPDATE webhook_subscriptions
     SET failing_since = CASE WHEN $3 = 'delivered' THEN NULL ELSE COALESCE(failing_since, now()) END,
         enabled = CASE WHEN $9::text IS NULL THEN enabled ELSE false END,
         disabled_reason = CASE WHEN $9::text IS NULL THEN disabled_reason ELSE $9 END,
         disabled_at = CASE WHEN $9::text IS NULL THEN disabled_at ELSE now() END
   -- Only when something changes: every try of a subscription updating its row would queue
   -- them all on its lock, and behind the dispatcher's.
   WHERE id = $2 AND ($9::text IS NOT NULL OR (failing_since IS NULL) <> ($3 = 'delivered'))`;

/** The Standard Webhooks headers of one try: every current secret signs. */
export function signedHeaders(
  event: { message_id: string; body: string; secrets: readonly string[] },
  now = new Date(),
) {
  return {
    'webhook-id': event.message_id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': event.secrets
      .map((secret) => new Webhook(secret).sign(event.message_id, now, event.body))
      .join(' '),
  };
}

export function startDelivery(deps: DeliveryDeps) {
  const queue = new Queue<DeliverJobData>(WEBHOOK_QUEUE, {
    connection: deps.connection,
    prefix: deps.prefix,
  });
  queue.on('error', (error) => deps.log('warn', 'webhook-queue', { err: error }, 'queue error'));

  /** Queues one try of each event; ids make a try queued twice run once. */
  async function enqueue(events: readonly { id: string; attempt: number; delayMs?: number }[]) {
    if (events.length === 0) return;
    await queue.addBulk(
      events.map((event) => ({
        name: DELIVER_JOB.name,
        data: { eventId: event.id },
        opts: {
          ...DELIVER_JOB_OPTIONS,
          jobId: DELIVER_JOB.id(event.id, event.attempt),
          ...(event.delayMs ? { delay: event.delayMs } : {}),
        },
      })),
    );
  }

  async function deliver(eventId: string) {
    const { rows } = await deps.pool.query<EventToSend>(EVENT_TO_SEND, [eventId]);
    const event = rows[0];
    // Delivered, failed, or its subscription disabled or deleted since it was queued.
    if (!event || event.status !== 'pending' || !event.enabled) return;
    const now = Date.now();
    const headers = signedHeaders({ ...event, secrets: secretsOf(event, now) }, new Date(now));
    const result = await deps.sender.send(event.url, event.body, headers);
    const attempts = event.attempts + 1;
    // The schedule counts from the end of this try.
    const finished = Date.now();
    const disable =
      result.outcome === 'gone'
        ? 'gone'
        : result.outcome !== 'delivered' &&
            event.failing_since !== null &&
            event.failing_since.getTime() <= finished - FAILING_DISABLE_MS
          ? 'failing'
          : null;
    let status = 'pending';
    let delayMs: number | null = null;
    if (result.outcome === 'delivered') status = 'delivered';
    else if (!disable) {
      delayMs = nextDelayMs(deps.retryScheduleMs, {
        attempts,
        slowDown: result.outcome === 'timeout' || result.statusCode === 429,
        retryAfterMs: retryAfterMs(result.retryAfter, finished),
      });
      if (delayMs === null) status = 'failed';
    }
    await deps.pool.query(RECORD_TRY, [
      event.id,
      event.subscription_id,
      result.outcome,
      result.statusCode,
      result.durationMs,
      result.response,
      status,
      new Date(finished + (delayMs ?? 0)),
      disable,
    ]);
    deps.metrics.tried(result, status === 'delivered' ? event.changed_at : null);
    if (delayMs !== null) await enqueue([{ id: event.id, attempt: attempts + 1, delayMs }]);
  }

  const worker = new Worker<DeliverJobData>(
    WEBHOOK_QUEUE,
    (job: Job<DeliverJobData>) => deliver(job.data.eventId),
    {
      connection: deps.connection,
      prefix: deps.prefix,
      concurrency: deps.concurrency,
      // A try of a killed process is taken up again within seconds: its lock (renewed while
      // the try runs) expires, and the stalled check hands the job on.
      lockDuration: 10_000,
      stalledInterval: 5_000,
    },
  );
  worker.on('error', (error) => deps.log('warn', 'webhook-worker', { err: error }, 'worker error'));
  worker.on('failed', (job, error) =>
    deps.log('warn', 'webhook-try', { err: error, event: job?.data.eventId }, 'a try failed'),
  );

  /** Pending events of enabled subscriptions whose try is overdue: queued again. */
  async function sweep(): Promise<number> {
    const { rows } = await deps.pool.query<{ id: string; attempts: number }>(
      `SELECT e.id::text, e.attempts FROM webhook_events e
         JOIN webhook_subscriptions s ON s.id = e.subscription_id AND s.enabled
        WHERE e.status = 'pending'
          AND e.next_attempt_at <= now() - make_interval(secs => $1)
        ORDER BY e.next_attempt_at LIMIT $2`,
      [SWEEP_GRACE_SECONDS, SWEEP_BATCH],
    );
    await enqueue(rows.map((row) => ({ id: row.id, attempt: row.attempts + 1 })));
    return rows.length;
  }

  return {
    queue,
    enqueue,
    sweep,
    async close() {
      await closeWithin(worker, deps.log);
      await closeWithin(queue, deps.log);
    },
  };
}

export type Delivery = ReturnType<typeof startDelivery>;
export type { TryResult };
