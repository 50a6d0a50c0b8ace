// Delivers webhook events (decision 0012). PostgreSQL holds every event and its state; BullMQ
// only carries out tries: a dispatched page's first tries in jobs of 50, each retry in a job of
// its own whose id comes from the event and the try's number.
// A sweep re-queues every pending event whose try is overdue, so a Redis that lost its data, or
// a process killed mid-try, loses no event; a try cut short may be made again (at least once).
// Each try goes through its subscription's share (shares.ts): one partner's slow or silent
// endpoint holds its share of a process's slots and no more; a try beyond the share holds none, it
// is queued again for when its subscription is likely to have room.
import { bodyFor, erasureBody, receivedIn } from '#api/webhooks/bodies.js';
import type { ToldErasure } from '#api/changes/erasures.js';
import { clientClasses, type Received } from '#api/data-classes.js';
import { createRecipientsRecorder, type RecipientsRecorder } from '#api/recipients.js';
import { SANDBOX_KEY_PATTERN } from '#api/sandbox.js';
import { Worker, type Job, type Queue } from 'bullmq';
import type { RedisClient } from '#common/redis.js';
import type pg from 'pg';
import type { throttledLog } from '#common/log-throttle.js';
import { tracing } from '#common/traces.js';
import { closeWithin, replaceStuck } from '../close-within.js';
import pLimit from 'p-limit';
import { OVERDUE_AFTER_MS } from '#api/webhooks/overdue.js';
import { mayReceive } from '#api/webhooks/rights.js';
import { CREDENTIALS_LIVE } from '#api/webhooks/credentials.js';
import type { DisabledReason, EventStatus } from '#api/webhooks/vocabulary.js';
import type { WebhookSecrets } from '#api/webhooks/secrets.js';
import {
  DELIVER_BATCH,
  DELIVER_JOB,
  DELIVER_JOB_OPTIONS,
  openQueue,
  WEBHOOK_QUEUE,
  type DeliverJobData,
} from '../queues.js';
import { nextDelayMs, retryAfterMs } from './retry.js';
import type { Sender, TryResult } from '#api/webhooks/send.js';
import { signedHeaders, signingSecrets } from '#api/webhooks/signing.js';
import { createShares, type Entry, type Shares, type TurnedAway } from './shares.js';
import type { WebhookMetrics } from './webhook-metrics.js';

/** A subscription failing every try for this long is disabled. */
export const FAILING_DISABLE_MS = 5 * 86_400_000;
const SWEEP_BATCH = 1000;
/** See api/webhooks/overdue.ts. */
const SWEEP_GRACE_SECONDS = OVERDUE_AFTER_MS / 1000;
/**
 * The queue's oldest waiting try due this long, and no try under way, at two sweeps running: no
 * worker is taking the queue's jobs. After a Redis failover a BullMQ worker's blocking connection
 * can stay stuck in its reconnect, the worker alive and silent (docs/decisions/0006); this
 * process's is then replaced. Two sweeps, not one: a healthy worker is between jobs for an
 * instant, and replacing it would cut its tries short.
 */
const UNTAKEN_AFTER_MS = 10_000;
const UNTAKEN_SWEEPS = 2;

export interface DeliveryDeps {
  pool: pg.Pool;
  connection: RedisClient;
  prefix: string;
  sender: Sender;
  retryScheduleMs: readonly number[];
  concurrency: number;
  /** Tries of one subscription in flight at once until its endpoint answers (shares.ts). */
  subscriptionConcurrency: number;
  /** A silent subscription's first back-off (WEBHOOK_BACK_OFF_MS, shares.ts). */
  backOffMs: number;
  /** The bound on one try (WEBHOOK_TIMEOUT_MS): a subscription's probe is answered by then. */
  timeoutMs: number;
  metrics: WebhookMetrics;
  log: ReturnType<typeof throttledLog>;
  /** Opens the stored secrets (SECRETS_KEY). */
  secrets: WebhookSecrets;
}

interface EventToSend {
  id: string;
  message_id: string;
  event_type: string;
  row_branch_id: number | null;
  body: string;
  status: string;
  attempts: number;
  changed_at: Date;
  subscription_id: number;
  client_id: number;
  url: string;
  enabled: boolean;
  /** Whether the credentials the subscription stands on live (api/webhooks/credentials.ts). */
  credentials_live: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  failing_since: Date | null;
  client: {
    is_active: boolean;
    scopes: string[];
    branch_id: number | null;
    data_classes: string[];
    /** A sandbox client's (api/sandbox.ts): its members are generated, no one's data. */
    sandbox: boolean;
  };
  /** The member write whose change this is, when it was traced (dispatch.ts). */
  trace_parent: string | null;
  /** An erased member's deletion, to a client that received the member: sent as an erasure. */
  erasure: ToldErasure | null;
}

const EVENTS_TO_SEND = `
  SELECT e.id::text, e.message_id, e.event_type, e.row_branch_id, e.body, e.status, e.attempts,
         e.changed_at, e.trace_parent, s.id AS subscription_id, s.client_id, s.url, s.enabled,
         ${CREDENTIALS_LIVE} AS credentials_live, s.failing_since,
         s.secret, s.previous_secret, s.previous_secret_until,
         json_build_object('is_active', c.is_active, 'scopes', c.scopes, 'branch_id', c.branch_id,
                           'data_classes', c.data_classes,
                           'sandbox', c.client_key LIKE '${SANDBOX_KEY_PATTERN}') AS client,
         erased.erasure
    FROM webhook_events e JOIN webhook_subscriptions s ON s.id = e.subscription_id
    JOIN api_clients c ON c.id = s.client_id
    -- A member's deletion whose erasure the client is to be told (api/changes/erasures.ts); the
    -- body is read only for such an event.
    LEFT JOIN LATERAL (
      SELECT json_build_object('member_no', x.member_no, 'erased_at', x.erased_at) AS erasure
        FROM member_erasures x
        JOIN member_recipients r ON r.member_id = x.member_id AND r.client_id = s.client_id
       WHERE x.member_id = CASE WHEN e.event_type = 'members.delete'
                                THEN (e.body::jsonb #>> '{data,id}')::int END
    ) erased ON true
   WHERE e.id = ANY($1::bigint[])`;

// Events their client may no longer receive: never sent, nor replayed (replay takes delivered and
// failed events only).
const CANCEL = `
  UPDATE webhook_events SET status = 'cancelled'
   WHERE id = ANY($1::bigint[]) AND status = 'pending'`;

// One statement for a job's tries: each recorded, each event moved on; a try made twice (a job
// run again) records twice, harmlessly.
const RECORD_TRIES = `
  WITH attempt AS (
    INSERT INTO webhook_attempts (event_id, subscription_id, outcome, status_code, duration_ms, response)
    SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::int[], $5::int[], $6::text[])
  )
  UPDATE webhook_events e
     SET attempts = e.attempts + 1, status = u.status, next_attempt_at = u.next_at,
         delivered_at = CASE WHEN u.status = 'delivered' THEN now() END
    FROM unnest($1::bigint[], $7::text[], $8::timestamptz[]) AS u(id, status, next_at)
   WHERE e.id = u.id AND e.status = 'pending'`;

// Tries put off by their subscription's back-off: not made, so not recorded; each event's next
// try is moved to the end of the back-off, where the sweep takes it (never earlier than planned).
const DEFER_EVENTS = `
  UPDATE webhook_events e SET next_attempt_at = u.at
    FROM unnest($1::bigint[], $2::timestamptz[]) AS u(id, at)
   WHERE e.id = u.id AND e.status = 'pending' AND e.next_attempt_at < u.at`;
// When a back-off starts or grows: every pending event of the subscription waits for its end, so
// that neither the sweep nor another worker queues them meanwhile.
const DEFER_SUBSCRIPTION = `
  UPDATE webhook_events SET next_attempt_at = $2
   WHERE subscription_id = $1 AND status = 'pending' AND next_attempt_at < $2`;

// Only when its state changes: every try of a subscription updating its row would queue them all
// on its lock, and behind the dispatcher's. A subscription already disabled keeps its reason: a
// 410 met by a try in flight must not turn an operator's disable into one its partner may lift.
const SUBSCRIPTION_STATE = `
  UPDATE webhook_subscriptions
     SET failing_since = CASE WHEN $2 THEN NULL ELSE COALESCE(failing_since, now()) END,
         enabled = CASE WHEN $3::text IS NULL THEN enabled ELSE false END,
         disabled_reason = CASE WHEN $3::text IS NULL OR NOT enabled THEN disabled_reason ELSE $3 END,
         disabled_at = CASE WHEN $3::text IS NULL OR NOT enabled THEN disabled_at ELSE now() END
   WHERE id = $1`;

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
  let untakenSweeps = 0;
  /** The worker replaced when due tries have not been taken for two sweeps (UNTAKEN_AFTER_MS). */
  async function replaceIfUntaken(head: Date | null) {
    const untaken =
      head !== null &&
      Date.now() - head.getTime() > UNTAKEN_AFTER_MS &&
      (await queue.getActiveCount()) === 0;
    untakenSweeps = untaken ? untakenSweeps + 1 : 0;
    if (untakenSweeps < UNTAKEN_SWEEPS) return;
    untakenSweeps = 0;
    deps.log('warn', 'webhook-untaken', {}, 'due tries are not taken; delivery worker replaced');
    worker = replaceStuck(worker, () => startWorker(deliverer), deps.log);
  }
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

/** What a delivering process works with: its dependencies, its queue, its shares, its tries. */
interface Deliverer extends DeliveryDeps {
  queue: Queue<DeliverJobData>;
  /** The process's tries in flight, whoever they are for; each subscription's share comes first. */
  sending: ReturnType<typeof pLimit>;
  shares: Shares;
  /**
   * Events whose try this process is making or has in a line: a sweep's copy of one (queued while
   * it waits its turn) is dropped here rather than sent twice.
   */
  taken: Set<string>;
  recipients: RecipientsRecorder;
}

/** A try to queue: a retry after `delayMs`; a try turned away by its share for `waitUntil`. */
interface QueuedTry {
  id: string;
  attempt: number;
  delayMs?: number;
  waitUntil?: number;
}

/** A try let into its subscription's share, with the secrets that sign it. */
interface Admitted {
  event: EventToSend;
  secrets: string[];
  entry: Entry;
}

/** A try its subscription's share turned away: not made. */
interface Turned {
  event: EventToSend;
  away: TurnedAway;
}

/** A try's answer judged (judge). */
interface Judgement {
  /** Tries made, this one included. */
  attempts: number;
  disable: DisabledReason | null;
  status: EventStatus;
  /** The delay before the next try; null when there is none. */
  delayMs: number | null;
}

/** A try made and judged; `backOffUntil` is set when it started or lengthened a back-off. */
interface Tried extends Judgement {
  event: EventToSend;
  result: TryResult;
  backOffUntil: number | null;
}

/** What one try's answer means for its event and its subscription. */
export function judge(
  retryScheduleMs: readonly number[],
  event: Pick<EventToSend, 'attempts' | 'failing_since'>,
  result: TryResult,
  finished: number,
): Judgement {
  const attempts = event.attempts + 1;
  const disable: DisabledReason | null =
    result.outcome === 'gone'
      ? 'gone'
      : result.outcome !== 'delivered' &&
          event.failing_since !== null &&
          event.failing_since.getTime() <= finished - FAILING_DISABLE_MS
        ? 'failing'
        : null;
  let status: EventStatus = 'pending';
  let delayMs: number | null = null;
  if (result.outcome === 'delivered') status = 'delivered';
  else if (!disable) {
    delayMs = nextDelayMs(retryScheduleMs, {
      attempts,
      slowDown: result.outcome === 'timeout' || result.statusCode === 429,
      retryAfterMs: retryAfterMs(result.retryAfter, finished),
    });
    if (delayMs === null) status = 'failed';
  }
  return { attempts, disable, status, delayMs };
}

/**
 * A subscription's state, where these tries change it: the last try of each decides. Only a
 * change is written (SUBSCRIPTION_STATE).
 */
export function subscriptionChanges(
  tried: readonly {
    event: Pick<EventToSend, 'subscription_id' | 'failing_since'>;
    result: Pick<TryResult, 'outcome'>;
    disable: DisabledReason | null;
  }[],
): { id: number; delivered: boolean; disable: DisabledReason | null }[] {
  const last = new Map(tried.map((t) => [t.event.subscription_id, t]));
  const changes = [];
  for (const [id, t] of last) {
    const delivered = t.result.outcome === 'delivered';
    if (t.disable === null && delivered === (t.event.failing_since === null)) continue;
    changes.push({ id, delivered, disable: t.disable });
  }
  return changes;
}

/** Until when a try turned away is not made: its event's next try moves there (DEFER_EVENTS). */
const turnedAwayUntil = (away: TurnedAway) =>
  'waitUntil' in away ? away.waitUntil : away.deferUntil;

/**
 * The tries turned away that are queued again: those waiting for room in their share, for then;
 * the others (a back-off) are left to the sweep.
 */
export function requeued(
  turned: readonly { event: Pick<EventToSend, 'id' | 'attempts'>; away: TurnedAway }[],
  now: number,
): QueuedTry[] {
  return turned.flatMap(({ event, away }) =>
    'waitUntil' in away
      ? [
          {
            id: event.id,
            attempt: event.attempts + 1,
            delayMs: Math.max(away.waitUntil - now, 1),
            waitUntil: away.waitUntil,
          },
        ]
      : [],
  );
}

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
async function enqueue(
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

/** One job: its events still due are tried, each as its subscription's share lets it. */
async function deliver(d: Deliverer, eventIds: readonly string[]) {
  const due = await dueEvents(d, eventIds);
  const signable = withSecrets(d, due);
  if (signable.length === 0) return;
  const { admitted, turned } = enterShares(d.shares, signable);
  for (const { event } of admitted) d.taken.add(event.id);
  try {
    await recordReceived(d, admitted);
    await tryAndRecord(d, admitted, turned);
  } finally {
    for (const { event } of admitted) d.taken.delete(event.id);
  }
}

/**
 * The recipients record of the tries about to be made, written before any is sent
 * (api/recipients.ts): a worker that dies after sending never leaves a recipient unrecorded.
 */
async function recordReceived(d: Pick<Deliverer, 'recipients'>, admitted: readonly Admitted[]) {
  const byClient = new Map<number, Received>();
  for (const { event } of admitted) {
    // The sandbox's members are generated: nobody's data to record, nor to erase.
    if (event.client.sandbox) continue;
    const received: Received = byClient.get(event.client_id) ?? new Map<number, number>();
    receivedIn(event.body, clientClasses(event.client), received);
    byClient.set(event.client_id, received);
  }
  // Nothing to wait for where every member and client is recorded already.
  const writes = [...byClient].flatMap(
    ([clientId, received]) => d.recipients.record(clientId, received) ?? [],
  );
  await Promise.all(writes);
}

/** The job's events still to be tried; those their client may no longer receive are cancelled. */
async function dueEvents(
  d: Pick<Deliverer, 'pool' | 'taken'>,
  eventIds: readonly string[],
): Promise<EventToSend[]> {
  const { rows } = await d.pool.query<EventToSend>(EVENTS_TO_SEND, [eventIds]);
  // Delivered, failed, or their subscription disabled or deleted since they were queued. One
  // whose credentials ended waits, pending, for the sweep to disable it and its partner to look.
  const pending = rows.filter(
    (event) =>
      event.status === 'pending' &&
      event.enabled &&
      event.credentials_live &&
      !d.taken.has(event.id),
  );
  // The client's rights as they are now, not as they were when the event was recorded.
  const due = pending.filter((event) => mayReceive(event.client, event));
  if (due.length < pending.length) {
    const refused = pending.filter((event) => !due.includes(event)).map((event) => event.id);
    await d.pool.query(CANCEL, [refused]);
  }
  return due;
}

/**
 * The events with the secrets that sign them. A secret no key of SECRETS_KEY opens: the event is
 * not tried and stays pending, so the sweep brings it back until the operator sets the key that
 * opens it.
 */
function withSecrets(d: Pick<Deliverer, 'secrets' | 'log'>, due: readonly EventToSend[]) {
  // A job's events mostly share a subscription: each stored secret is opened once per job.
  const opened = new Map<string, string>();
  const open = (stored: string) => {
    let secret = opened.get(stored);
    if (secret === undefined) opened.set(stored, (secret = d.secrets.open(stored)));
    return secret;
  };
  return due.flatMap((event) => {
    try {
      return [{ event, secrets: signingSecrets(event, Date.now()).map(open) }];
    } catch (error) {
      d.log(
        'error',
        'webhook-secret',
        { subscription: event.subscription_id, reason: (error as Error).message },
        'a webhook signing secret cannot be decrypted with SECRETS_KEY; its events wait',
      );
      return [];
    }
  });
}

/** Each a place in its subscription's share at once, or none: then it is turned away. */
function enterShares(
  shares: Shares,
  signable: readonly { event: EventToSend; secrets: string[] }[],
): { admitted: Admitted[]; turned: Turned[] } {
  const entered = signable.map((s) => ({ ...s, entry: shares.enter(s.event.subscription_id) }));
  const admitted = entered.flatMap(({ entry, ...s }) => ('line' in entry ? [{ ...s, entry }] : []));
  const turned = entered.flatMap(({ event, entry }) =>
    'line' in entry ? [] : [{ event, away: entry }],
  );
  return { admitted, turned };
}

/**
 * The tries let into their subscription's share are made, each when one of the process's places
 * is free; the try itself and its judgement are as they ever were. Those turned away are queued
 * again meanwhile, not when this job's sends end.
 */
async function tryAndRecord(
  d: Deliverer,
  admitted: readonly Admitted[],
  turned: readonly Turned[],
) {
  const sends = Promise.all(
    admitted.map(({ event, secrets, entry }) =>
      d.shares
        .run(
          entry,
          () => d.sending(() => makeTry(d, event, secrets)),
          (t) => t.result.outcome === 'timeout',
        )
        .then(({ sent, backOffUntil }) => ({ ...sent, backOffUntil })),
    ),
  );
  let tried;
  try {
    await turnAway(d, turned);
  } finally {
    tried = await sends;
  }
  if (tried.length === 0) return;
  await record(d, tried);
}

/**
 * One try: rendered for the classes of personal data the client holds now, signed as it starts,
 * sent, and judged.
 */
async function makeTry(
  d: Pick<Deliverer, 'sender' | 'retryScheduleMs'>,
  event: EventToSend,
  secrets: string[],
) {
  const now = Date.now();
  const body = event.erasure
    ? erasureBody(event.body, event.erasure)
    : bodyFor(event.body, clientClasses(event.client));
  const sent = { ...event, body };
  const headers = signedHeaders({ ...sent, secrets }, new Date(now));
  const result = await sendTraced(d, sent, headers);
  // The schedule counts from the end of this try.
  return { event, result, ...judge(d.retryScheduleMs, event, result, Date.now()) };
}

/**
 * One try's POST. With tracing on, it is a span of its own (its HTTP request a child), linked
 * to the member write whose change the event carries, if that write was traced.
 */
function sendTraced(
  d: Pick<Deliverer, 'sender'>,
  event: EventToSend,
  headers: Record<string, string>,
): Promise<TryResult> {
  const send = () => d.sender.send(event.url, event.body, headers);
  const traces = tracing();
  if (!traces) return send();
  const attributes = {
    'webhook.event_id': event.id,
    'webhook.subscription_id': event.subscription_id,
    'webhook.attempt': event.attempts + 1,
  };
  return traces.inSpan('webhook delivery', 'internal', attributes, () => {
    if (event.trace_parent) traces.addLinks([event.trace_parent]);
    return send();
  });
}

/**
 * Tries their subscription's share turned away, not made: each event's next try moves to the
 * time given (DEFER_EVENTS), so the sweep leaves it; those waiting for room in the share are
 * queued again for then, the others (a back-off) left to the sweep.
 */
async function turnAway(d: Pick<Deliverer, 'pool' | 'queue'>, turned: readonly Turned[]) {
  if (turned.length === 0) return;
  await d.pool.query(DEFER_EVENTS, [
    turned.map((t) => t.event.id),
    turned.map((t) => new Date(turnedAwayUntil(t.away))),
  ]);
  await enqueue(d, requeued(turned, Date.now()));
}

/**
 * A job's tries recorded in one statement; then the subscriptions' state and back-offs they
 * change, the metrics, and the next tries queued.
 */
async function record(d: Deliverer, tried: readonly Tried[]) {
  const now = Date.now();
  await d.pool.query(RECORD_TRIES, [
    tried.map((t) => t.event.id),
    tried.map((t) => t.event.subscription_id),
    tried.map((t) => t.result.outcome),
    tried.map((t) => t.result.statusCode),
    tried.map((t) => t.result.durationMs),
    tried.map((t) => t.result.response),
    tried.map((t) => t.status),
    tried.map((t) => new Date(now + (t.delayMs ?? 0))),
  ]);
  for (const change of subscriptionChanges(tried)) {
    await d.pool.query(SUBSCRIPTION_STATE, [change.id, change.delivered, change.disable]);
  }
  for (const t of tried) {
    if (t.backOffUntil !== null) {
      await d.pool.query(DEFER_SUBSCRIPTION, [t.event.subscription_id, new Date(t.backOffUntil)]);
    }
  }
  for (const t of tried) {
    d.metrics.tried(t.result, t.status === 'delivered' ? t.event.changed_at : null);
  }
  await enqueue(
    d,
    tried
      .filter((t) => t.delayMs !== null)
      .map((t) => ({ id: t.event.id, attempt: t.attempts + 1, delayMs: t.delayMs! })),
  );
}

/**
 * When the oldest job still waiting in the queue was due, if one is waiting. Every event due
 * before it was taken by a worker (or lost); one due after it may be in a job still waiting.
 */
async function queueHead(queue: Queue<DeliverJobData>): Promise<Date | null> {
  const [oldest] = await queue.getJobs(['wait'], 0, 0, true);
  return oldest ? new Date(oldest.timestamp + (oldest.opts.delay ?? 0)) : null;
}

/**
 * Pending events of enabled subscriptions whose try is overdue: queued again. Overdue counts
 * from the queue's head, not from now: an event behind a backlog (its job waiting its turn) is
 * not lost, and a copy of it would cost a job and a read of its own, where its page's first
 * tries share one job of 50, and slow the backlog further.
 */
async function sweep(d: Deliverer, head: Date | null): Promise<number> {
  const { rows } = await d.pool.query<{ id: string; attempts: number }>(
    `SELECT e.id::text, e.attempts FROM webhook_events e
         JOIN webhook_subscriptions s ON s.id = e.subscription_id AND s.enabled
        WHERE e.status = 'pending'
          AND e.next_attempt_at <= LEAST(now(), $3::timestamptz) - make_interval(secs => $1)
        ORDER BY e.next_attempt_at LIMIT $2`,
    [SWEEP_GRACE_SECONDS, SWEEP_BATCH, head],
  );
  // An event waiting in one of this process's lines is not lost either, only behind its
  // partner's earlier tries.
  const lost = rows.filter((row) => !d.taken.has(row.id));
  await enqueue(
    d,
    lost.map((row) => ({ id: row.id, attempt: row.attempts + 1 })),
  );
  d.metrics.requeued(lost.length);
  return lost.length;
}
