// A subscription's recorded events sent again (POST /webhooks/{id}/replay, the portal, the CLI),
// within WEBHOOK_REPLAYS_PER_HOUR and WEBHOOK_REPLAY_MAX (common/config.ts). Part of the webhook
// service (webhooks.service.ts), which passes its database and limits in.
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import { dueAtOnce } from '#api/webhooks/overdue.js';
import { AppError, validationError } from '../../http/errors.js';

export interface ReplayDeps {
  db: ReadModelClient;
  limits: Pick<Config['webhooks'], 'replayMax' | 'replaysPerHour'>;
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
 * The events recorded since `since` sent again, with their own webhook-id: the failed ones,
 * or every one that is not pending. Returns how many. More than WEBHOOK_REPLAY_MAX is refused
 * whole: one statement counts them (up to one past the limit) and sets back none or all.
 */
export async function replayEvents(
  { db, limits }: ReplayDeps,
  owner: number | null,
  id: number,
  since: Date,
  failedOnly: boolean,
) {
  // Counted first, in one statement, so replays at once cannot all see room; every replay
  // asked for counts, a refused one too.
  const [counted] = await db.$queryRaw<{ replays: number; retry_after: number }[]>`
        UPDATE webhook_subscriptions
           SET replays_in_window = CASE WHEN replay_window_at > now() - interval '1 hour'
                                        THEN replays_in_window + 1 ELSE 1 END,
               replay_window_at = CASE WHEN replay_window_at > now() - interval '1 hour'
                                       THEN replay_window_at ELSE now() END
         WHERE id = ${id} AND (${owner}::int IS NULL OR client_id = ${owner}::int)
        RETURNING replays_in_window AS replays,
                  ceil(extract(epoch FROM replay_window_at + interval '1 hour' - now()))::int
                    AS retry_after`;
  if (!counted) return null;
  checkReplayRate(counted, limits.replaysPerHour);
  const max = limits.replayMax;
  const [count] = await db.$queryRaw<ReplayCount[]>`
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
           WHERE e.id IN (SELECT id FROM chosen) AND counted.n <= ${max}
          RETURNING 1)
        SELECT (SELECT n FROM counted) AS matched, (SELECT count(*)::int FROM replayed) AS replayed`;
  if (count!.matched > max) {
    throw validationError(
      [{ field: 'since', message: `en fazla ${max} olay; daha yakın bir zaman seçin.` }],
      `Bir istekle en fazla ${max} olay yeniden gönderilebilir; daha yakın bir since seçin.`,
    );
  }
  return count!.replayed;
}
