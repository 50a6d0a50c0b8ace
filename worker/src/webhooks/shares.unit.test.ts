import { describe, expect, it } from 'vitest';
import { BACK_OFF_FIRST_MS, createShares } from './shares.js';

const TIMEOUT_MS = 15_000;

/** A try that ends when the test says, as an answer or a time-out. */
function pendingTry() {
  let end!: (timedOut: boolean) => void;
  const result = new Promise<boolean>((resolve) => (end = resolve));
  let started = false;
  return {
    send: () => {
      started = true;
      return result;
    },
    started: () => started,
    end,
  };
}

const timedOut = (result: boolean) => result;
const tick = () => new Promise((resolve) => setImmediate(resolve));

function sharesAt(perSubscription: number, most = 100) {
  const clock = { now: 1_000_000 };
  const shares = createShares({
    perSubscription,
    most,
    timeoutMs: TIMEOUT_MS,
    now: () => clock.now,
  });
  return { shares, clock };
}

describe('a subscription’s share', () => {
  it('holds its tries beyond the share in its own line, not another subscription’s', async () => {
    const { shares } = sharesAt(2);
    const tries = [pendingTry(), pendingTry(), pendingTry()];
    const turns = tries.map((t) => shares.take(1, t.send, timedOut));
    const other = pendingTry();
    const otherTurn = shares.take(2, other.send, timedOut);
    await tick();
    expect(tries.map((t) => t.started())).toEqual([true, true, false]);
    expect(other.started()).toBe(true);
    tries[0]!.end(false);
    await tick();
    expect(tries[2]!.started()).toBe(true);
    for (const t of [...tries, other]) t.end(false);
    expect(await Promise.all(turns)).toEqual([
      { sent: false, backOffUntil: null },
      { sent: false, backOffUntil: null },
      { sent: false, backOffUntil: null },
    ]);
    expect(await otherTurn).toEqual({ sent: false, backOffUntil: null });
  });
});

describe('a line that grows while its endpoint answers', () => {
  /** How many of `count` tries of one subscription are in flight at once. */
  async function startedOf(shares: ReturnType<typeof sharesAt>['shares'], count: number) {
    const tries = Array.from({ length: count }, () => pendingTry());
    const turns = tries.map((t) => shares.take(1, t.send, timedOut));
    await tick();
    return { started: tries.filter((t) => t.started()).length, tries, turns };
  }

  it('lets one more through after each answer within a second, up to the most; a slow answer or a time-out does not', async () => {
    const { shares, clock } = sharesAt(1, 3);
    const burst = await startedOf(shares, 6);
    expect(burst.started).toBe(1);
    burst.tries[0]!.end(false);
    await tick();
    await tick();
    // A fast answer: the line lets two through now.
    expect(burst.tries.filter((t) => t.started()).length).toBe(3);
    burst.tries[1]!.end(false);
    burst.tries[2]!.end(false);
    await tick();
    await tick();
    // Three at once, the most, however many answers come.
    expect(burst.tries.filter((t) => t.started()).length).toBe(6);
    clock.now += 2000;
    for (const t of burst.tries.slice(3)) t.end(false);
    await Promise.all(burst.turns);

    // A new burst starts from the share again; a slow answer lets no more through.
    const slow = await startedOf(shares, 3);
    expect(slow.started).toBe(1);
    clock.now += 2000;
    slow.tries[0]!.end(false);
    await tick();
    await tick();
    expect(slow.tries.filter((t) => t.started()).length).toBe(2);
    for (const t of slow.tries) t.end(false);
    await Promise.all(slow.turns);
  });
});

describe('the back-off after a time-out', () => {
  it('defers the waiting tries, then lets one probe through, doubles on silence, ends on an answer', async () => {
    const { shares, clock } = sharesAt(1);
    const first = pendingTry();
    const firstTurn = shares.take(1, first.send, timedOut);
    const waiting = pendingTry();
    const waitingTurn = shares.take(1, waiting.send, timedOut);
    await tick();
    first.end(true);
    const until = clock.now + BACK_OFF_FIRST_MS;
    expect(await firstTurn).toEqual({ sent: true, backOffUntil: until });
    // The try waiting behind it gives up its place without being sent.
    expect(await waitingTurn).toEqual({ deferUntil: until });
    expect(waiting.started()).toBe(false);

    clock.now = until;
    const probe = pendingTry();
    const probeTurn = shares.take(1, probe.send, timedOut);
    await tick();
    expect(probe.started()).toBe(true);
    // Beside the probe, another try waits for its answer.
    expect(await shares.take(1, pendingTry().send, timedOut)).toEqual({
      deferUntil: until + TIMEOUT_MS,
    });
    probe.end(true);
    expect(await probeTurn).toEqual({ sent: true, backOffUntil: until + 2 * BACK_OFF_FIRST_MS });

    clock.now = until + 2 * BACK_OFF_FIRST_MS;
    const answered = pendingTry();
    const answeredTurn = shares.take(1, answered.send, timedOut);
    await tick();
    answered.end(false);
    expect(await answeredTurn).toEqual({ sent: false, backOffUntil: null });
    const next = pendingTry();
    const nextTurn = shares.take(1, next.send, timedOut);
    await tick();
    expect(next.started()).toBe(true);
    next.end(false);
    await nextTurn;
  });
});
