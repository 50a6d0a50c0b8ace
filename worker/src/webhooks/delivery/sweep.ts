// What makes delivery at least once: every pending event whose try is overdue is queued again, so
// a Redis that lost its data, or a process killed mid-try, loses no event; a try cut short may be
// made again. And a process whose queue consumer no longer takes due tries gets a new one.
import { OVERDUE_AFTER_MS } from '#api/webhooks/overdue.js';
import type { Deliverer } from './deliverer.js';
import { enqueue } from './queue.js';

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

/**
 * Counts the sweeps that find due tries untaken (UNTAKEN_AFTER_MS); at the second running it
 * calls `replace` and starts counting again.
 */
export function untakenWatch(d: Pick<Deliverer, 'queue' | 'log'>, replace: () => void) {
  let untakenSweeps = 0;
  return async (head: Date | null) => {
    const untaken =
      head !== null &&
      Date.now() - head.getTime() > UNTAKEN_AFTER_MS &&
      (await d.queue.getActiveCount()) === 0;
    untakenSweeps = untaken ? untakenSweeps + 1 : 0;
    if (untakenSweeps < UNTAKEN_SWEEPS) return;
    untakenSweeps = 0;
    d.log('warn', 'webhook-untaken', {}, 'due tries are not taken; delivery worker replaced');
    replace();
  };
}

/**
 * Pending events of enabled subscriptions whose try is overdue: queued again. Overdue counts
 * from the queue's head, not from now: an event behind a backlog (its job waiting its turn) is
 * not lost, and a copy of it would cost a job and a read of its own, where its page's first
 * tries share one job of 50, and slow the backlog further.
 */
export async function sweep(
  d: Pick<Deliverer, 'pool' | 'queue' | 'taken' | 'metrics'>,
  head: Date | null,
): Promise<number> {
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
