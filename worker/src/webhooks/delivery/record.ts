// What a job's tries leave in PostgreSQL, which holds every event and its state: the tries made,
// recorded with their events' next step and their subscriptions' state, and the tries a share
// turned away, put off without a record.
import type { TryResult } from '#api/webhooks/send.js';
import type { TurnedAway } from '../shares.js';
import type { Deliverer, EventToSend } from './deliverer.js';
import { requeued, subscriptionChanges, turnedAwayUntil, type Judgement } from './policy.js';
import { enqueue } from './queue.js';

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

/** A try its subscription's share turned away: not made. */
export interface Turned {
  event: EventToSend;
  away: TurnedAway;
}

/** A try made and judged; `backOffUntil` is set when it started or lengthened a back-off. */
export interface Tried extends Judgement {
  event: EventToSend;
  result: TryResult;
  backOffUntil: number | null;
}

/**
 * Tries their subscription's share turned away, not made: each event's next try moves to the
 * time given (DEFER_EVENTS), so the sweep leaves it; those waiting for room in the share are
 * queued again for then, the others (a back-off) left to the sweep.
 */
export async function turnAway(d: Pick<Deliverer, 'pool' | 'queue'>, turned: readonly Turned[]) {
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
export async function record(
  d: Pick<Deliverer, 'pool' | 'queue' | 'metrics'>,
  tried: readonly Tried[],
) {
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
