// What a client is told about its three windows: the specification's X-RateLimit-* headers and
// the IETF draft's structured fields (draft-ietf-httpapi-ratelimit-headers), one named policy per
// window. Pure functions, so the formats are unit-tested without Redis.

export const WINDOW_NAMES = ['minute', 'hour', 'day'] as const;
export type WindowName = (typeof WINDOW_NAMES)[number];

export interface WindowState {
  name: WindowName;
  windowSeconds: number;
  limit: number;
  /** Requests counted in the current window, this one included; may exceed `limit`. */
  used: number;
  /** When the current window ends and its whole quota is free again. */
  resetTime: Date;
}

const TITLE: Record<WindowName, string> = { minute: 'Minute', hour: 'Hour', day: 'Day' };

/** Requests the window still admits. */
export const remainingOf = (state: WindowState) => Math.max(0, state.limit - state.used);
const secondsUntil = (time: Date, now: number) =>
  Math.max(0, Math.ceil((time.getTime() - now) / 1000));

export function rateLimitHeaders(
  states: readonly WindowState[],
  now = Date.now(),
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const state of states) {
    headers[`X-RateLimit-Limit-${TITLE[state.name]}`] = String(state.limit);
    headers[`X-RateLimit-Remaining-${TITLE[state.name]}`] = String(remainingOf(state));
  }
  headers['RateLimit-Policy'] = states
    .map((s) => `"${s.name}";q=${s.limit};w=${s.windowSeconds}`)
    .join(', ');
  headers.RateLimit = states
    .map((s) => `"${s.name}";r=${remainingOf(s)};t=${secondsUntil(s.resetTime, now)}`)
    .join(', ');
  return headers;
}

/**
 * Whole seconds until a request would be admitted again: the latest reset among the windows with
 * nothing left (several can be exhausted at once), and at least 1, so a client that obeys never
 * retries in a tight loop.
 */
export function retryAfterSeconds(states: readonly WindowState[], now = Date.now()): number {
  const waits = states
    .filter((s) => remainingOf(s) === 0)
    .map((s) => secondsUntil(s.resetTime, now));
  return Math.max(1, ...waits);
}
