// Fair delivery (decision 0012): each subscription has its own share of a process's tries, so one
// partner's slow or silent endpoint cannot hold the slots every other partner's tries need.
//  - A share: a subscription's tries wait in a line of its own (a p-limit) before the process's.
//    The line lets `perSubscription` tries through at once, and one more after each answer within
//    a second, up to all of the process's: an endpoint that answers is soon sent as much as the
//    process can, one that does not holds its share and no more. A line left empty is dropped, so
//    each burst starts from the share again.
//  - Back-off: a try that times out shows a silent endpoint. Its subscription then sends nothing
//    until the back-off ends (60 s, doubled after each probe that times out, up to 10 min); the
//    tries waiting in its line give up their places at once and are deferred to that end. After
//    it, one try probes; the others are deferred until the probe's answer is known. Any answer
//    (even a 500 or a refused connection, which hold no slot for long) ends the back-off.
// The state is this process's own: every worker gives each subscription its share of its tries.
import pLimit, { type LimitFunction } from 'p-limit';
import { SLOW_DOWN_FLOOR_MS } from './retry.js';

export const BACK_OFF_FIRST_MS = SLOW_DOWN_FLOOR_MS;
export const BACK_OFF_MAX_MS = 600_000;
/** An answer within this shows an endpoint that may be sent more at once. */
export const FAST_ANSWER_MS = 1000;

export type Turn<T> =
  | { sent: T; backOffUntil: number | null }
  /** Not tried: to be tried from this time on. */
  | { deferUntil: number };

interface BackOff {
  until: number;
  stepMs: number;
  /** When the probe in flight, if any, has its answer at the latest. */
  probeEndsAt: number | null;
}

export function createShares(options: {
  perSubscription: number;
  /** The process's tries at once: a line grows no further. */
  most: number;
  /** The bound on one try: a probe's answer is known by then. */
  timeoutMs: number;
  now?: () => number;
}) {
  const now = options.now ?? Date.now;
  /** Each subscription with tries here: its line, and how many tries are in it. */
  const lines = new Map<number, { limit: LimitFunction; tries: number }>();
  const backOffs = new Map<number, BackOff>();

  /**
   * Whether a try may be sent now (and whether as the probe, which `claim` takes), or until when
   * it must wait.
   */
  function admit(
    subscriptionId: number,
    claim: boolean,
  ): { probe: boolean } | { deferUntil: number } {
    const backOff = backOffs.get(subscriptionId);
    if (!backOff) return { probe: false };
    const at = now();
    if (at < backOff.until) return { deferUntil: backOff.until };
    // A probe that never settled (its try threw) is replaced once its time is up.
    if (backOff.probeEndsAt !== null && at < backOff.probeEndsAt) {
      return { deferUntil: backOff.probeEndsAt };
    }
    if (claim) backOff.probeEndsAt = at + options.timeoutMs;
    return { probe: true };
  }

  /** A try's end: a time-out starts or lengthens the back-off; an answer ends it. */
  function settle(
    subscriptionId: number,
    probe: boolean,
    answer: { timedOut: boolean; durationMs: number },
  ): number | null {
    const line = lines.get(subscriptionId)!.limit;
    const backOff = backOffs.get(subscriptionId);
    if (!answer.timedOut) {
      if (answer.durationMs < FAST_ANSWER_MS && line.concurrency < options.most) {
        line.concurrency += 1;
      }
      backOffs.delete(subscriptionId);
      return null;
    }
    line.concurrency = options.perSubscription;
    if (!backOff) {
      const started = { until: now() + BACK_OFF_FIRST_MS, stepMs: BACK_OFF_FIRST_MS };
      backOffs.set(subscriptionId, { ...started, probeEndsAt: null });
      return started.until;
    }
    // The first tries, sent before the first time-out, time out after it: the back-off stands.
    if (!probe) return null;
    backOff.stepMs = Math.min(backOff.stepMs * 2, BACK_OFF_MAX_MS);
    backOff.until = now() + backOff.stepMs;
    backOff.probeEndsAt = null;
    return backOff.until;
  }

  /**
   * One try of a subscription's event within its share: `send` runs, or the try is deferred.
   * `backOffUntil` is set when this try started or lengthened the subscription's back-off.
   */
  async function take<T>(
    subscriptionId: number,
    send: () => Promise<T>,
    timedOut: (result: T) => boolean,
  ): Promise<Turn<T>> {
    // A subscription backing off takes no place in its line: its tries are deferred at once.
    const early = admit(subscriptionId, false);
    if ('deferUntil' in early) return early;
    let line = lines.get(subscriptionId);
    if (!line) {
      line = { limit: pLimit(options.perSubscription), tries: 0 };
      lines.set(subscriptionId, line);
    }
    line.tries += 1;
    try {
      return await line.limit(async () => {
        const admitted = admit(subscriptionId, true);
        if ('deferUntil' in admitted) return admitted;
        const started = now();
        const sent = await send();
        const answer = { timedOut: timedOut(sent), durationMs: now() - started };
        return { sent, backOffUntil: settle(subscriptionId, admitted.probe, answer) };
      });
    } finally {
      // An idle subscription keeps no line; its back-off, if any, stays until an answer.
      line.tries -= 1;
      if (line.tries === 0) lines.delete(subscriptionId);
    }
  }

  return { take };
}

export type Shares = ReturnType<typeof createShares>;
