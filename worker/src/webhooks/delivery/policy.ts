// The delivery policy, free of I/O: what a try's answer means for its event and its
// subscription, and which tries a subscription's share turned away are queued again.
import type { DisabledReason, EventStatus } from '#api/webhooks/vocabulary.js';
import type { TryResult } from '#api/webhooks/send.js';
import { nextDelayMs, retryAfterMs } from '../retry.js';
import type { TurnedAway } from '../shares.js';
import type { EventToSend, QueuedTry } from './deliverer.js';

/** A subscription failing every try for this long is disabled. */
export const FAILING_DISABLE_MS = 5 * 86_400_000;

/** A try's answer judged (judge). */
export interface Judgement {
  /** Tries made, this one included. */
  attempts: number;
  disable: DisabledReason | null;
  status: EventStatus;
  /** The delay before the next try; null when there is none. */
  delayMs: number | null;
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
 * change is written (record.ts, SUBSCRIPTION_STATE).
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

/**
 * Until when a try turned away is not made: its event's next try moves there (record.ts,
 * DEFER_EVENTS).
 */
export const turnedAwayUntil = (away: TurnedAway) =>
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
