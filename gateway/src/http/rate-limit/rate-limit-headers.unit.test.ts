import { describe, expect, it } from 'vitest';
import { rateLimitHeaders, retryAfterSeconds, type WindowState } from './rate-limit-headers.js';

const now = Date.parse('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(now + seconds * 1000);
const states = (minuteUsed: number, hourUsed = 1): WindowState[] => [
  { name: 'minute', windowSeconds: 60, limit: 60, used: minuteUsed, resetTime: at(42.3) },
  { name: 'hour', windowSeconds: 3600, limit: 1000, used: hourUsed, resetTime: at(1800) },
  { name: 'day', windowSeconds: 86400, limit: 10000, used: 1, resetTime: at(86400) },
];

describe('rateLimitHeaders', () => {
  it('when a window is partly used, then both header families report it in whole numbers', () => {
    expect(rateLimitHeaders(states(1), now)).toEqual({
      'X-RateLimit-Limit-Minute': '60',
      'X-RateLimit-Remaining-Minute': '59',
      'X-RateLimit-Limit-Hour': '1000',
      'X-RateLimit-Remaining-Hour': '999',
      'X-RateLimit-Limit-Day': '10000',
      'X-RateLimit-Remaining-Day': '9999',
      'RateLimit-Policy': '"minute";q=60;w=60, "hour";q=1000;w=3600, "day";q=10000;w=86400',
      RateLimit: '"minute";r=59;t=43, "hour";r=999;t=1800, "day";r=9999;t=86400',
    });
  });

  it('when refused requests push the count past the limit, then remaining stays at 0', () => {
    const headers = rateLimitHeaders(states(75), now);
    expect(headers['X-RateLimit-Remaining-Minute']).toBe('0');
    expect(headers.RateLimit).toMatch(/^"minute";r=0;t=43,/);
  });

  it('when a reset time has just passed, then t is 0, never negative', () => {
    const [minute] = states(1);
    expect(rateLimitHeaders([{ ...minute!, resetTime: at(-1) }], now).RateLimit).toBe(
      '"minute";r=59;t=0',
    );
  });
});

describe('retryAfterSeconds', () => {
  it('when only the minute is used up, then the wait is the rest of the minute, rounded up', () => {
    expect(retryAfterSeconds(states(61), now)).toBe(43);
  });

  it('when the minute and the hour are both used up, then the wait is until the hour ends', () => {
    expect(retryAfterSeconds(states(61, 1000), now)).toBe(1800);
  });

  it('when the window ends within the same second, then the wait is still at least 1', () => {
    const [minute] = states(61);
    expect(retryAfterSeconds([{ ...minute!, resetTime: at(0) }], now)).toBe(1);
  });
});
