// Calendar arithmetic on the digits of date texts, without Date objects: a backfill reads and
// writes millions of dates (legacy-values.ts reads the legacy texts, copy-rows.ts writes the
// binary COPY form).

/** The digit at `at` in `text`; NaN if it is none. */
function digitAt(text: string, at: number): number {
  const digit = text.charCodeAt(at) - 48;
  return digit >= 0 && digit <= 9 ? digit : NaN;
}

/** The two-digit number at `at` in `text` (a month, an hour); NaN unless both are digits. */
export function twoDigitsAt(text: string, at: number): number {
  return digitAt(text, at) * 10 + digitAt(text, at + 1);
}

/** The four-digit number at `at` in `text` (a year); NaN unless all four are digits. */
export function fourDigitsAt(text: string, at: number): number {
  return twoDigitsAt(text, at) * 100 + twoDigitsAt(text, at + 2);
}

/** The three-digit number at `at` in `text` (milliseconds); NaN unless all three are digits. */
export function threeDigitsAt(text: string, at: number): number {
  return twoDigitsAt(text, at) * 10 + digitAt(text, at + 2);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days in a month (1 to 12) of the proleptic Gregorian calendar. */
export function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/** Whether the day exists: no year, month or day 0 (MySQL's zero dates), no 30 February. */
export function isCalendarDay(year: number, month: number, day: number): boolean {
  if (!year || !month || !day || month > 12) return false;
  return day <= daysInMonth(year, month);
}

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil), by
 * arithmetic: the years 0 to 99 as they are, which Date.UTC would read as 1900 to 1999.
 */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
