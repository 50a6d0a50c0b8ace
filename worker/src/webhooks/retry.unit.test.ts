import { describe, expect, it } from 'vitest';
import { nextDelayMs, retryAfterMs } from './retry.js';

const SCHEDULE = [5000, 300_000];

describe('nextDelayMs', () => {
  it('follows the schedule within ±20 %', () => {
    expect(
      nextDelayMs(SCHEDULE, { attempts: 1, slowDown: false, retryAfterMs: null }, () => 0),
    ).toBe(4000);
    expect(
      nextDelayMs(SCHEDULE, { attempts: 1, slowDown: false, retryAfterMs: null }, () => 1),
    ).toBe(6000);
    expect(
      nextDelayMs(SCHEDULE, { attempts: 2, slowDown: false, retryAfterMs: null }, () => 0.5),
    ).toBe(300_000);
  });
  it('ends when the schedule is spent', () => {
    expect(nextDelayMs(SCHEDULE, { attempts: 3, slowDown: false, retryAfterMs: null })).toBeNull();
  });
  it('waits at least 60 s after a 429 or a timeout, and at least Retry-After', () => {
    expect(
      nextDelayMs(SCHEDULE, { attempts: 1, slowDown: true, retryAfterMs: null }, () => 0.5),
    ).toBe(60_000);
    expect(
      nextDelayMs(SCHEDULE, { attempts: 1, slowDown: true, retryAfterMs: 120_000 }, () => 0.5),
    ).toBe(120_000);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs('Wed, 25 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(undefined, now)).toBeNull();
  });
});
