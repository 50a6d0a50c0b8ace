// A subscription's recorded events sent again (POST /webhooks/{id}/replay, the portal, the CLI),
// within WEBHOOK_REPLAYS_PER_HOUR, WEBHOOK_REPLAY_MAX and WEBHOOK_REPLAY_EVENTS_PER_HOUR
// (common/config.ts). Part of the webhook
// service (webhooks.service.ts), which passes its database and limits in.
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import { dueAtOnce } from '#api/webhooks/overdue.js';
import { AppError, validationError } from '../../http/errors.js';

export interface ReplayDeps {
  db: ReadModelClient;
  limits: Pick<Config['webhooks'], 'replayMax' | 'replaysPerHour' | 'replayEventsPerHour'>;
}

const tooManyReplays = (perHour: number, retryAfter: number) =>
  new AppError({
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: `Bir abonelik saatte en fazla ${perHour} kez yeniden gönderim isteyebilir; lütfen daha sonra tekrar deneyin.`,
    retryAfter,
  });

interface ReplayCount {
  matched: number;
  replayed: number;
}

/**
 * 429 when the subscription's replays counted in its hour (this one included) pass `perHour`;
 * the wait it names is at least a second.
 */
export function checkReplayRate(
  counted: { replays: number; retry_after: number },
  perHour: number,
): void {
  if (counted.replays > perHour) {
    throw tooManyReplays(perHour, Math.max(1, counted.retry_after));
  }
}

/**
 * 429 when the events of this replay (`matched`) would take the subscription's events replayed
 * in its hour past `perHour`; it says how many remain.
 */
export function checkReplayEvents(
  counted: { events: number; retry_after: number },
  matched: number,
  perHour: number,
): void {
  const remaining = Math.max(0, perHour - counted.events);
  if (matched <= remaining) return;
  throw new AppError({
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: `Bir abonelik saatte en fazla ${perHour} olayı yeniden gönderebilir; bu saat için ${remaining} olay kaldı, bu istek ${matched} olay seçiyor. Daha yakın bir since seçin ya da daha sonra tekrar deneyin.`,
    details: [{ field: 'since', message: `bu saat için ${remaining} olay kaldı` }],
    retryAfter: Math.max(1, counted.retry_after),
  });
}

/**
 * The events recorded since `since` sent again, with their own webhook-id: the failed ones,
 * or every one that is not pending. Returns how many. More than WEBHOOK_REPLAY_MAX, or more than
 * the WEBHOOK_REPLAY_EVENTS_PER_HOUR left in the subscription's hour, is refused whole: one
 * statement counts them (up to one past the limit) and sets back none or all.
 */
export async function replayEvents(
  { db, limits }: ReplayDeps,
  owner: number | null,
  id: number,
  since: Date,
  failedOnly: boolean,
) {
  const max = limits.replayMax;
  const done = await db.$transaction(async (tx) => {
    // Counted first, in one statement, so replays at once cannot all see room; every replay
    // asked for counts, a refused one too (its refusal is thrown after the commit). The row
    // stays locked to the end: the events of two replays at once are added up in turn.
    const [counted] = await tx.$queryRaw<
      { replays: number; events: number; retry_after: number }[]
    >`
        UPDATE webhook_subscriptions
           SET replays_in_window = CASE WHEN replay_window_at > now() - interval '1 hour'
                                        THEN replays_in_window + 1 ELSE 1 END,
               replay_events_in_window = CASE WHEN replay_window_at > now() - interval '1 hour'
                                              THEN replay_events_in_window ELSE 0 END,
               replay_window_at = CASE WHEN replay_window_at > now() - interval '1 hour'
                                       THEN replay_window_at ELSE now() END
         WHERE id = ${id} AND (${owner}::int IS NULL OR client_id = ${owner}::int)
        RETURNING replays_in_window AS replays, replay_events_in_window AS events,
                  ceil(extract(epoch FROM replay_window_at + interval '1 hour' - now()))::int
                    AS retry_after`;
    if (!counted) return null;
    if (counted.replays > limits.replaysPerHour) return { counted, matched: 0, replayed: 0 };
    const room = Math.min(max, Math.max(0, limits.replayEventsPerHour - counted.events));
    const [count] = await tx.$queryRaw<ReplayCount[]>`
        WITH chosen AS MATERIALIZED (
          SELECT id FROM webhook_events
           WHERE subscription_id = ${id} AND created_at >= ${since}
             AND (status = 'failed' OR (NOT ${failedOnly} AND status = 'delivered'))
           LIMIT ${max + 1}
             FOR UPDATE),
        counted AS (SELECT count(*)::int AS n FROM chosen),
        replayed AS (
          UPDATE webhook_events e
             SET status = 'pending', attempts = 0, next_attempt_at = ${dueAtOnce()},
                 delivered_at = NULL
            FROM counted
           WHERE e.id IN (SELECT id FROM chosen) AND counted.n <= ${room}
          RETURNING 1)
        SELECT (SELECT n FROM counted) AS matched, (SELECT count(*)::int FROM replayed) AS replayed`;
    if (count!.replayed > 0) {
      await tx.webhookSubscription.update({
        where: { id },
        data: { replay_events_in_window: { increment: count!.replayed } },
      });
    }
    return { counted, ...count! };
  });
  if (!done) return null;
  checkReplayRate(done.counted, limits.replaysPerHour);
  if (done.matched > max) {
    throw validationError(
      [{ field: 'since', message: `en fazla ${max} olay; daha yakın bir zaman seçin.` }],
      `Bir istekle en fazla ${max} olay yeniden gönderilebilir; daha yakın bir since seçin.`,
    );
  }
  checkReplayEvents(done.counted, done.matched, limits.replayEventsPerHour);
  return done.replayed;
}
