// Fair delivery (decision 0012): each subscription has its own share of a process's tries, so one
// partner's slow or silent endpoint cannot hold the slots every other partner's tries need.
//  - A share: a subscription may have `perSubscription` tries in flight at once, and one more
//    after each answer within a second, up to all of the process's: an endpoint that answers is
//    soon sent as much as the process can, one that does not holds its share and no more. A try
//    beyond the share is not held anywhere: it is turned away with the time its subscription is
//    likely to have room (its answers' pace), and queued again for then. A subscription left
//    without tries in flight is forgotten, so each burst starts from the share again.
//  - Slow answers: an answer that takes a third of the time-out or more sets the share back to
//    `perSubscription`, as a time-out does.
//  - Back-off: a try that times out shows a silent endpoint. Its subscription then sends nothing
//    until the back-off ends (`backOffMs`, 60 s by default, doubled after each probe that times out, up to 10 min); its
//    other tries are deferred to that end. After it, one try probes; the others are deferred until
//    the probe's answer is known. Any answer (even a 500 or a refused connection, which hold no
//    slot for long) ends the back-off.
// The state is this process's own: every worker gives each subscription its share of its tries.
export const BACK_OFF_MAX_MS = 600_000;
/** An answer within this shows an endpoint that may be sent more at once. */
export const FAST_ANSWER_MS = 1000;
/** The shortest answer time a turned-away try is paced by: it is queued again, not spun. */
const LEAST_PACE_MS = 50;

/** A try let in: it is sent now, then settled by `run`. */
export interface Entry {
  subscriptionId: number;
  line: Line;
  probe: boolean;
}

/** A try not let in, so not made. */
export type TurnedAway =
  /** Its subscription backs off, or waits for a probe's answer: to be tried from this time on. */
  | { deferUntil: number }
  /** Its subscription's share is in flight: to be queued again for this time. */
  | { waitUntil: number };

interface BackOff {
  until: number;
  stepMs: number;
  /** When the probe in flight, if any, has its answer at the latest. */
  probeEndsAt: number | null;
}

/** A subscription's tries in flight in this process. */
export interface Line {
  inFlight: number;
  /** Tries it may have in flight at once: its share, grown by fast answers. */
  concurrency: number;
  /** Since when it has had tries in flight. */
  openedAt: number;
  /** How long its answers take (a moving average); null before the first. */
  answerMs: number | null;
  /** The time the last try turned away was given: the next is given a later one. */
  paceAt: number;
}

interface SharesOptions {
  perSubscription: number;
  /** The process's tries at once: a share grows no further. */
  most: number;
  /** The bound on one try: a probe's answer is known by then. */
  timeoutMs: number;
  /** A silent subscription's first back-off. */
  backOffMs: number;
  now?: () => number;
}

/** One process's shares: the lines of tries in flight and the back-offs, by subscription. */
interface SharesState {
  options: SharesOptions;
  now: () => number;
  slowAnswerMs: number;
  lines: Map<number, Line>;
  backOffs: Map<number, BackOff>;
}

export function createShares(options: SharesOptions) {
  const state: SharesState = {
    options,
    now: options.now ?? Date.now,
    slowAnswerMs: options.timeoutMs / 3,
    lines: new Map(),
    backOffs: new Map(),
  };
  return {
    enter: (subscriptionId: number) => enter(state, subscriptionId),
    run: <T>(entry: Entry, send: () => Promise<T>, timedOut: (result: T) => boolean) =>
      run(state, entry, send, timedOut),
  };
}

export type Shares = ReturnType<typeof createShares>;

/**
 * Whether a try may be sent now (and whether as the probe, which `claim` takes), or until when
 * it must wait.
 */
function admit(
  state: SharesState,
  subscriptionId: number,
  claim: boolean,
): { probe: boolean } | { deferUntil: number } {
  const backOff = state.backOffs.get(subscriptionId);
  if (!backOff) return { probe: false };
  const at = state.now();
  if (at < backOff.until) return { deferUntil: backOff.until };
  // A probe that never settled (its try threw) is replaced once its time is up.
  if (backOff.probeEndsAt !== null && at < backOff.probeEndsAt) {
    return { deferUntil: backOff.probeEndsAt };
  }
  if (claim) backOff.probeEndsAt = at + state.options.timeoutMs;
  return { probe: true };
}

/**
 * When a try turned away from a full line is likely to find room: the line frees one place per
 * answer time divided by its places, and each try turned away takes the next such time.
 */
function paced(state: SharesState, line: Line): number {
  const at = state.now();
  const answerMs = Math.max(line.answerMs ?? at - line.openedAt, LEAST_PACE_MS);
  line.paceAt = Math.max(line.paceAt, at) + answerMs / line.concurrency;
  return Math.ceil(line.paceAt);
}

/** A try's end: a time-out starts or lengthens the back-off; an answer ends it. */
function settle(
  state: SharesState,
  subscriptionId: number,
  line: Line,
  probe: boolean,
  answer: { timedOut: boolean; durationMs: number },
): number | null {
  const { options, backOffs } = state;
  line.answerMs =
    line.answerMs === null ? answer.durationMs : (line.answerMs * 3 + answer.durationMs) / 4;
  const backOff = backOffs.get(subscriptionId);
  if (!answer.timedOut) {
    if (answer.durationMs >= state.slowAnswerMs) line.concurrency = options.perSubscription;
    else if (answer.durationMs < FAST_ANSWER_MS && line.concurrency < options.most) {
      line.concurrency += 1;
    }
    backOffs.delete(subscriptionId);
    return null;
  }
  line.concurrency = options.perSubscription;
  if (!backOff) {
    const first = options.backOffMs;
    const started = { until: state.now() + first, stepMs: first };
    backOffs.set(subscriptionId, { ...started, probeEndsAt: null });
    return started.until;
  }
  // The first tries, sent before the first time-out, time out after it: the back-off stands.
  if (!probe) return null;
  backOff.stepMs = Math.min(backOff.stepMs * 2, BACK_OFF_MAX_MS);
  backOff.until = state.now() + backOff.stepMs;
  backOff.probeEndsAt = null;
  return backOff.until;
}

/**
 * Whether a try of the subscription may be sent now, at once: if so, it holds a place in its
 * share until `run` settles it (every entry must be run); if not, it is turned away without
 * waiting anywhere.
 */
function enter(state: SharesState, subscriptionId: number): Entry | TurnedAway {
  const early = admit(state, subscriptionId, false);
  if ('deferUntil' in early) return early;
  let line = state.lines.get(subscriptionId);
  if (line && line.inFlight >= line.concurrency) return { waitUntil: paced(state, line) };
  const admitted = admit(state, subscriptionId, true);
  if ('deferUntil' in admitted) return admitted;
  if (!line) {
    line = {
      inFlight: 0,
      concurrency: state.options.perSubscription,
      openedAt: state.now(),
      answerMs: null,
      paceAt: 0,
    };
    state.lines.set(subscriptionId, line);
  }
  line.inFlight += 1;
  return { subscriptionId, line, probe: admitted.probe };
}

/**
 * An entered try: `send` runs, and its answer moves the share. `backOffUntil` is set when this
 * try started or lengthened the subscription's back-off.
 */
async function run<T>(
  state: SharesState,
  entry: Entry,
  send: () => Promise<T>,
  timedOut: (result: T) => boolean,
): Promise<{ sent: T; backOffUntil: number | null }> {
  const { subscriptionId, line } = entry;
  try {
    const started = state.now();
    const sent = await send();
    const answer = { timedOut: timedOut(sent), durationMs: state.now() - started };
    return { sent, backOffUntil: settle(state, subscriptionId, line, entry.probe, answer) };
  } finally {
    // A subscription without tries in flight keeps no line; its back-off, if any, stays until
    // an answer.
    line.inFlight -= 1;
    if (line.inFlight === 0 && state.lines.get(subscriptionId) === line) {
      state.lines.delete(subscriptionId);
    }
  }
}
