import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { legacyWallClockToInstant } from '#common/legacy-time.js';
import {
  UnmappableValue,
  day,
  dayOrNull,
  instantOrNull,
  legacyWallClock,
  oneOfOrNull,
  recentInstantMs,
  text,
  timestamps,
} from './legacy-values.js';

describe('legacy values read as text', () => {
  it('when a date is zero, partly zero or impossible, then it reads null', () => {
    for (const value of [
      '0000-00-00',
      '2020-00-10',
      '2020-05-00',
      '2021-02-29',
      '2100-02-29',
      '2020-13-01',
      '2020-04-31',
    ])
      expect(dayOrNull(value), value).toBeNull();
    expect(instantOrNull('0000-00-00 00:00:00')).toBeNull();
    expect(instantOrNull('2021-02-29 10:00:00')).toBeNull();
    expect(dayOrNull('2000-02-29')).toBe('2000-02-29');
  });

  it('when a date is valid, then it keeps its calendar day and its wall clock', () => {
    expect(dayOrNull('2024-02-29')).toBe('2024-02-29');
    expect(instantOrNull('2026-11-21 10:00:00')).toBe('2026-11-21T07:00:00.000Z');
    expect(recentInstantMs('2026-11-21T07:00:00.000Z')).toBe(Date.UTC(2026, 10, 21, 7));
    // Before 03:00 in Istanbul it is the previous day in UTC (and the previous year here).
    expect(instantOrNull('2027-01-01 02:30:15')).toBe('2026-12-31T23:30:15.000Z');
    expect(instantOrNull('2024-02-29 23:59:59.5')).toBe('2024-02-29T20:59:59.000Z');
    expect(instantOrNull('0099-01-02 12:00:00')).toBe('0099-01-02T09:00:00.000Z');
    expect(instantOrNull('0099-01-01 00:00:00')).toBe('0098-12-31T21:00:00.000Z');
    expect(legacyWallClock('0099-01-02')?.getUTCFullYear()).toBe(99);
  });

  it('when DATETIME texts are read by character codes, then each reads as through a Date', () => {
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    const field = (max: number) =>
      fc.oneof(fc.integer({ min: 0, max }), fc.constantFrom(0, 1, 2, 3, 12, 23, 28, 29, 31));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 0, max: 9999 }),
          fc.constantFrom(0, 1, 99, 100, 1900, 2000, 2024),
        ),
        field(13),
        field(32),
        field(25),
        field(60),
        field(60),
        (year, month, day, hours, minutes, seconds) => {
          const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)} ${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}`;
          const wallClock = legacyWallClock(text);
          const expected = wallClock && legacyWallClockToInstant(wallClock).toISOString();
          const instant = instantOrNull(text);
          expect(instant, text).toBe(expected);
          // The binary COPY takes the instant's number from the mapping when it knows it.
          const known = instant === null ? undefined : recentInstantMs(instant);
          if (known !== undefined) expect(known, text).toBe(Date.parse(instant!));
          const date = text.slice(0, 10);
          expect(dayOrNull(date), date).toBe(legacyWallClock(date) && date);
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('when a required date is zero, then the row cannot be represented', () => {
    expect(() => day('0000-00-00', 'due_date')).toThrow(UnmappableValue);
    expect(() => day('0000-00-00', 'due_date')).toThrow(/due_date/);
  });

  it('when one timestamp is zero, then it takes the other; when both are, the row is rejected', () => {
    const both = timestamps({
      created_at: '0000-00-00 00:00:00',
      updated_at: '2026-01-01 03:00:00',
    });
    expect(both.created_at).toEqual(both.updated_at);
    expect(() =>
      timestamps({ created_at: '0000-00-00 00:00:00', updated_at: '0000-00-00 00:00:00' }),
    ).toThrow(UnmappableValue);
  });

  it('when a value is outside its set or holds NUL, then it reads null or loses the NUL', () => {
    expect(oneOfOrNull('', ['Erkek', 'Kadın'])).toBeNull();
    expect(text('A\0B')).toBe('AB');
  });
});
