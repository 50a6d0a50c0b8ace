// Calendar arithmetic on the digits of date texts, without Date objects: a backfill reads and
// writes millions of dates (legacy-values.ts reads the legacy texts, copy-rows.ts writes the
// binary COPY form).

/** The decimal number of `length` digits at `at` in `text`; NaN unless all are digits. */
export function digitsAt(text: string, at: number, length: number): number {
  let n = 0;
  for (let i = at; i < at + length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return NaN;
    n = n * 10 + digit;
  }
  return n;
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
