// When a pending webhook event counts as lost by the queue: the worker's sweep queues again each
// pending event this far past its try (worker/src/webhooks/delivery/sweep.ts). Long enough for a burst
// of first tries to drain without being queued twice, short enough that a Redis that lost its
// data costs seconds. Replay and enable set their events due this far back, so the next sweep
// (every 2 s) queues them: the gateway has no queue of its own to put them on.
export const OVERDUE_AFTER_MS = 10_000;

/** A next-try time the next sweep takes at once. */
export const dueAtOnce = () => new Date(Date.now() - OVERDUE_AFTER_MS);
