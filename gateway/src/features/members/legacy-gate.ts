// Admission of member writes to the legacy database, per gateway instance.
// - Creates of one branch are let in two at a time: MySQL serialises them on the branch's counter
//   row anyway, so one holds the lock while the next already waits for it at MySQL and takes it
//   the moment the first commits, with no turn of the gateway in between. The rest queue here,
//   holding no pooled connection, so a burst in one branch never starves writes to other
//   branches of connections.
// - After MySQL was found unreachable, writes fail at once (503) for a moment instead of each
//   waiting out the pool's timeout again.
import { serviceUnavailable } from '../../http/errors.js';

const FAIL_FAST_MS = 2000;
/** Creates of one branch in flight at once: the counter lock's holder and the next in line. */
const PER_BRANCH = 2;

interface Lane {
  running: number;
  waiting: (() => void)[];
}

export function createLegacyGate() {
  const lanes = new Map<number, Lane>();
  let downUntil = 0;

  function admit() {
    if (Date.now() < downUntil) throw serviceUnavailable(2);
  }

  /** Resolves once a place among the branch's writes in flight is this caller's. */
  function enter(branchId: number): Promise<void> | undefined {
    let lane = lanes.get(branchId);
    if (!lane) lanes.set(branchId, (lane = { running: 0, waiting: [] }));
    if (lane.running < PER_BRANCH) {
      lane.running++;
      return undefined;
    }
    return new Promise((resolve) => lane.waiting.push(resolve));
  }

  /** Hands the place to the next in arrival order, or gives it up. */
  function leave(branchId: number) {
    const lane = lanes.get(branchId);
    if (!lane) return;
    const next = lane.waiting.shift();
    if (next) return next();
    if (--lane.running === 0) lanes.delete(branchId);
  }

  return {
    /** Runs `write` once fewer than two earlier writes of `branchId` run (null: no queue). */
    async run<T>(branchId: number | null, write: () => Promise<T>): Promise<T> {
      admit();
      if (branchId === null) return write();
      await enter(branchId);
      try {
        admit();
        return await write();
      } finally {
        leave(branchId);
      }
    },
    /** MySQL was found unreachable: refuse writes for a moment. */
    markDown() {
      downUntil = Date.now() + FAIL_FAST_MS;
    },
  };
}

export type LegacyGate = ReturnType<typeof createLegacyGate>;
