// Repeated failures (a dependency down for a minute fails every poll and every request) are
// logged once per interval and per kind, with the number of lines held back, so an outage
// leaves a readable log instead of thousands of identical lines.
import type { Logger } from './logger.js';

export type ThrottledLog = (
  level: 'warn' | 'error',
  key: string,
  fields: Record<string, unknown>,
  message: string,
) => void;

export function throttledLog(logger: Logger, intervalMs = 10_000): ThrottledLog {
  const seen = new Map<string, { last: number; suppressed: number }>();
  return (level, key, fields, message) => {
    const now = Date.now();
    const entry = seen.get(key);
    if (entry && now - entry.last < intervalMs) {
      entry.suppressed += 1;
      return;
    }
    logger[level]({ ...fields, suppressed: entry?.suppressed ?? 0 }, message);
    seen.set(key, { last: now, suppressed: 0 });
  };
}
