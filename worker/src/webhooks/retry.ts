// When a failed delivery is tried again (decision 0012): the schedule's next step, ±20 % so that
// a partner's many events do not all come back at the same second; never sooner than 60 s after a
// 429 or a timeout, never sooner than the partner's Retry-After; null once the schedule is spent.

export const JITTER = 0.2;
export const SLOW_DOWN_FLOOR_MS = 60_000;
/** A Retry-After beyond a day is taken as a day: the schedule ends within days anyway. */
const MAX_RETRY_AFTER_MS = 86_400_000;

/** Retry-After as seconds or as an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: number): number | null {
  if (!header) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Math.min(Number(value) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
}

export interface FailedTry {
  /** Tries made so far, this one included (1 after the first). */
  attempts: number;
  /** A 429 or a timeout: the partner is overwhelmed, not broken. */
  slowDown: boolean;
  retryAfterMs: number | null;
}

/** The delay before the next try, or null when the event has failed for good. */
export function nextDelayMs(
  schedule: readonly number[],
  failed: FailedTry,
  random: () => number = Math.random,
): number | null {
  const step = schedule[failed.attempts - 1];
  if (step === undefined) return null;
  let delay = step * (1 - JITTER + 2 * JITTER * random());
  if (failed.slowDown) delay = Math.max(delay, SLOW_DOWN_FLOOR_MS);
  if (failed.retryAfterMs !== null) delay = Math.max(delay, failed.retryAfterMs);
  return Math.round(delay);
}
