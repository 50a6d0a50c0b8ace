import { describe, expect, it } from 'vitest';
import { createShares, type Entry, type TurnedAway } from './shares.js';

const TIMEOUT_MS = 15_000;
const BACK_OFF_FIRST_MS = 60_000;

function sharesAt(perSubscription: number, most = 100) {
  const clock = { now: 1_000_000 };
  const shares = createShares({
    perSubscription,
    most,
    timeoutMs: TIMEOUT_MS,
    backOffMs: BACK_OFF_FIRST_MS,
    now: () => clock.now,
  });
  return { shares, clock };
}

type Shares = ReturnType<typeof sharesAt>['shares'];

const isEntry = (turn: Entry | TurnedAway): turn is Entry => 'line' in turn;

/** A try let in and sent: it ends when the test says, after `ms` on the clock. */
function sent(shares: Shares, clock: { now: number }, subscriptionId: number) {
  const entry = shares.enter(subscriptionId);
  if (!isEntry(entry)) throw new Error(`turned away: ${JSON.stringify(entry)}`);
  let end!: (timedOut: boolean) => void;
  const result = new Promise<boolean>((resolve) => (end = resolve));
  const turn = shares.run(
    entry,
    () => result,
    (timedOut) => timedOut,
  );
  return {
    probe: entry.probe,
    turn,
    /** Answers (or times out) after `ms` from now. */
    async end(timedOut: boolean, ms = 0) {
      clock.now += ms;
      end(timedOut);
      return turn;
    },
  };
}

/** How many tries of the subscription are let in before one is turned away. */
interface Running {
  end(timedOut: boolean, ms?: number): Promise<{ sent: boolean; backOffUntil: number | null }>;
}

function room(shares: Shares, subscriptionId: number, clock: { now: number }) {
  const tries: Running[] = [];
  for (;;) {
    const entry = shares.enter(subscriptionId);
    if (!isEntry(entry)) return { tries, away: entry };
    let end!: (timedOut: boolean) => void;
    const result = new Promise<boolean>((resolve) => (end = resolve));
    const turn = shares.run(
      entry,
      () => result,
      (timedOut) => timedOut,
    );
    tries.push({
      async end(timedOut: boolean, ms = 0) {
        clock.now += ms;
        end(timedOut);
        return turn;
      },
    });
  }
}

describe('a subscription’s share', () => {
  it('turns away its tries beyond the share at once, not another subscription’s', async () => {
    const { shares, clock } = sharesAt(2);
    const { tries, away } = room(shares, 1, clock);
    expect(tries).toHaveLength(2);
    expect(away).toHaveProperty('waitUntil');
    const other = sent(shares, clock, 2);
    expect(other.probe).toBe(false);
    await tries[0]!.end(false, 10);
    // A place is free again.
    const again = sent(shares, clock, 1);
    for (const t of [tries[1]!, again, other]) {
      expect(await t.end(false)).toEqual({ sent: false, backOffUntil: null });
    }
  });

  it('gives tries turned away the times its answers free places at, one after another', async () => {
    const { shares, clock } = sharesAt(2);
    const first = room(shares, 1, clock);
    // Answers take 8 s: with two places, one frees every 4 s.
    await first.tries[0]!.end(false, 8000);
    const start = clock.now;
    const line = room(shares, 1, clock);
    expect(line.tries).toHaveLength(1);
    expect(line.away).toEqual({ waitUntil: start + 4000 });
    expect(shares.enter(1)).toEqual({ waitUntil: start + 8000 });
    expect(shares.enter(1)).toEqual({ waitUntil: start + 12_000 });
    await first.tries[1]!.end(false);
    await line.tries[0]!.end(false);
  });
});

describe('a share that grows while its endpoint answers fast, and shrinks when it is slow', () => {
  it('lets one more in after each answer within a second, up to the most; a slow answer sets it back to the share', async () => {
    const { shares, clock } = sharesAt(2, 4);
    const first = room(shares, 1, clock);
    expect(first.tries).toHaveLength(2);
    // A fast answer: three places, one taken.
    await first.tries[0]!.end(false, 10);
    const second = room(shares, 1, clock);
    expect(second.tries).toHaveLength(2);
    await second.tries[0]!.end(false, 10);
    // Four places, the most, however many fast answers come.
    const third = room(shares, 1, clock);
    expect(third.tries).toHaveLength(2);
    await third.tries[0]!.end(false, 10);
    expect(room(shares, 1, clock).tries).toHaveLength(1);
    // A slow answer (a third of the time-out or more): back to two places, all taken.
    await first.tries[1]!.end(false, TIMEOUT_MS / 3);
    expect(room(shares, 1, clock).tries).toHaveLength(0);
  });
});

describe('the back-off after a time-out', () => {
  it('defers the other tries, then lets one probe through, doubles on silence, ends on an answer', async () => {
    const { shares, clock } = sharesAt(2);
    const first = sent(shares, clock, 1);
    const beside = sent(shares, clock, 1);
    const until = clock.now + BACK_OFF_FIRST_MS;
    expect(await first.end(true)).toEqual({ sent: true, backOffUntil: until });
    // A try sent before the time-out timing out after it: the back-off stands.
    expect(await beside.end(true)).toEqual({ sent: true, backOffUntil: null });
    expect(shares.enter(1)).toEqual({ deferUntil: until });

    clock.now = until;
    const probe = sent(shares, clock, 1);
    expect(probe.probe).toBe(true);
    // Beside the probe, another try waits for its answer.
    expect(shares.enter(1)).toEqual({ deferUntil: until + TIMEOUT_MS });
    expect(await probe.end(true)).toEqual({
      sent: true,
      backOffUntil: until + 2 * BACK_OFF_FIRST_MS,
    });

    clock.now = until + 2 * BACK_OFF_FIRST_MS;
    const answered = sent(shares, clock, 1);
    expect(await answered.end(false)).toEqual({ sent: false, backOffUntil: null });
    const next = sent(shares, clock, 1);
    expect(next.probe).toBe(false);
    await next.end(false);
  });
});
