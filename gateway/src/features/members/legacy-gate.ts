// Admission of member writes to the legacy database, per gateway instance.
// - Creates of one branch queue here, one at a time: MySQL serialises them on the branch's
//   counter row anyway, and a create waiting in this queue holds no pooled connection, so a
//   burst in one branch never starves writes to other branches of connections.
// - After MySQL was found unreachable, writes fail at once (503) for a moment instead of each
//   waiting out the pool's timeout again.
import { serviceUnavailable } from '../../http/errors.js';

const FAIL_FAST_MS = 2000;

export function createLegacyGate() {
  const tails = new Map<number, Promise<unknown>>();
  let downUntil = 0;

  function admit() {
    if (Date.now() < downUntil) throw serviceUnavailable(2);
  }

  return {
    /** Runs `write` after the earlier queued writes of `branchId` (null: no queue). */
    async run<T>(branchId: number | null, write: () => Promise<T>): Promise<T> {
      admit();
      if (branchId === null) return write();
      const previous = tails.get(branchId) ?? Promise.resolve();
      const current = previous.then(
        () => (admit(), write()),
        () => (admit(), write()),
      );
      const tail = current.catch(() => undefined);
      tails.set(branchId, tail);
      void tail.then(() => {
        if (tails.get(branchId) === tail) tails.delete(branchId);
      });
      return current;
    },
    /** MySQL was unreachable: refuse writes for a moment. */
    markDown() {
      downUntil = Date.now() + FAIL_FAST_MS;
    },
  };
}

export type LegacyGate = ReturnType<typeof createLegacyGate>;
