// Turning legacy raw-query values into API-ready read-model values. A value that cannot be
// represented throws UnmappableValue: its row is set aside (rejects.ts), never its whole table.
import { Prisma } from '../../../prisma/generated/legacy/client.js';
import {
  ISTANBUL_OFFSET_HOURS,
  dateOnly,
  legacyWallClockToInstant,
} from '../../../common/legacy-time.js';

/** A legacy value with no read-model representation; the message is the reject reason. */
export class UnmappableValue extends Error {}

export function int(value: unknown, reason?: string): number {
  if (typeof value === 'bigint' || typeof value === 'number') return Number(value);
  throw new UnmappableValue(
    reason ?? `expected an integer, got ${value === null ? 'null' : typeof value}`,
  );
}

export function intOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : int(value);
}

/** PostgreSQL text cannot hold NUL, which a MySQL VARCHAR can: it is dropped. */
export function text(value: unknown): string {
  if (typeof value === 'string') return value.includes('\0') ? value.replace(/\0/g, '') : value;
  throw new UnmappableValue(`expected a string, got ${value === null ? 'null' : typeof value}`);
}

export function textOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : text(value);
}

/** One of a documented set; anything else (an invalid ENUM reads '') is null. */
export function oneOfOrNull<T extends string>(value: unknown, allowed: readonly T[]): T | null {
  const found = allowed.find((a) => a === value);
  return found ?? null;
}

/** One of a documented set, required: anything else cannot be represented. */
export function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  const found = oneOfOrNull(value, allowed);
  if (found === null)
    throw new UnmappableValue(
      `${field}: ${JSON.stringify(value)} is not one of ${allowed.join(', ')}`,
    );
  return found;
}

/** TINYINT(1) 0/1 -> boolean. */
export function bool(value: unknown): boolean {
  return Number(value) === 1;
}

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

/** DECIMAL -> exact decimal string, so no float rounding creeps in before PostgreSQL. */
export function decimal(value: unknown): string {
  // The MariaDB driver (the sync's bulk reads, the gateway's member writes) hands DECIMAL over as
  // its exact text; the ORM's raw queries as a Decimal.js instance.
  if (typeof value === 'string' && DECIMAL_TEXT.test(value)) return value;
  if (value instanceof Prisma.Decimal || typeof value === 'number') return value.toString();
  throw new UnmappableValue(`expected a decimal, got ${value === null ? 'null' : typeof value}`);
}

const DATE_TIME_TEXT = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2})(?:\.\d+)?)?$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * A legacy DATE or DATETIME, read as text (sources CAST them AS CHAR, because the driver adapter
 * throws on a zero date and fails the whole batch) -> its parts. Zero dates ('0000-00-00'),
 * partly zero ones ('2020-00-10') and impossible ones ('2020-02-30'), which sessions without
 * NO_ZERO_DATE / NO_ZERO_IN_DATE write, are null. Checked by arithmetic, without a Date: the
 * backfill reads millions of them.
 */
function validDateText(value: string): RegExpExecArray | null {
  const match = DATE_TIME_TEXT.exec(value);
  if (!match) throw new UnmappableValue(`unreadable date ${JSON.stringify(value)}`);
  const year = Number(match[1]);
  const month = Number(match[2]);
  const dayOfMonth = Number(match[3]);
  if (!year || !month || !dayOfMonth || month > 12) return null;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  return dayOfMonth <= days ? match : null;
}

/** A legacy DATE or DATETIME (see validDateText) -> its wall-clock Date; null if not valid. */
export function legacyWallClock(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value;
  if (typeof value !== 'string')
    throw new UnmappableValue(`unreadable date ${JSON.stringify(value)}`);
  const match = validDateText(value);
  if (!match) return null;
  const [year = 0, month = 0, dayOfMonth = 0, hours = 0, minutes = 0, seconds = 0] = match
    .slice(1, 7)
    .map((part) => Number(part ?? 0));
  const date = new Date(Date.UTC(year, month - 1, dayOfMonth, hours, minutes, seconds));
  // Date.UTC reads the years 0-99 as 1900-1999.
  if (year < 100) date.setUTCFullYear(year);
  return date;
}

/** Whether text[from, to) are ASCII digits. */
function digitsAt(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** The number spelled by two ASCII digits at text[at], checked by the caller. */
function twoDigits(text: string, at: number): number {
  return (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;
}

/**
 * Whether text starts with a real calendar day spelled YYYY-MM-DD, checked character by
 * character: the backfill reads millions of them and a RegExp match costs an array and a string
 * per part. Any other spelling is false and takes validDateText's way.
 */
function isPlainValidDay(text: string): boolean {
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return false;
  if (!digitsAt(text, 0, 4) || !digitsAt(text, 5, 7) || !digitsAt(text, 8, 10)) return false;
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const dayOfMonth = twoDigits(text, 8);
  if (!year || !month || !dayOfMonth || month > 12) return false;
  return dayOfMonth <= daysInMonth(year, month);
}

/** 'T' and the UTC hour of each Istanbul wall-clock hour (the day before for 00:00-02:59). */
const UTC_HOUR_PREFIX = Array.from(
  { length: 24 },
  (_, hour) => `T${String((hour + 24 - ISTANBUL_OFFSET_HOURS) % 24).padStart(2, '0')}`,
);

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/** The calendar day before a valid 'YYYY-MM-DD...' text, as YYYY-MM-DD. */
function dayBefore(text: string): string {
  let year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  let month = twoDigits(text, 5);
  let dayOfMonth = twoDigits(text, 8) - 1;
  if (dayOfMonth === 0) {
    month -= 1;
    if (month === 0) {
      month = 12;
      year -= 1;
    }
    dayOfMonth = daysInMonth(year, month);
  }
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(dayOfMonth, 2)}`;
}

/**
 * DATETIME (Istanbul wall clock) -> the ISO text of the instant it denotes; null for zero
 * datetimes. Text, not a Date: a batch travels to PostgreSQL as JSON or COPY text, and
 * JSON.stringify of Date values is about ten times slower than of the same values as text
 * (docs/decisions/0002-sync-by-polling-with-look-back.md, backfill).
 */
export function instantOrNull(value: unknown): string | null {
  // The common spelling, a valid 'YYYY-MM-DD HH:MM:SS', is turned into UTC on the text itself.
  if (
    typeof value === 'string' &&
    value.length === 19 &&
    value.charCodeAt(10) === 32 &&
    value.charCodeAt(13) === 58 &&
    value.charCodeAt(16) === 58 &&
    digitsAt(value, 11, 13) &&
    digitsAt(value, 14, 16) &&
    digitsAt(value, 17, 19) &&
    twoDigits(value, 11) < 24 &&
    twoDigits(value, 14) < 60 &&
    twoDigits(value, 17) < 60 &&
    isPlainValidDay(value)
  ) {
    const hour = twoDigits(value, 11);
    const day = hour >= ISTANBUL_OFFSET_HOURS ? value.slice(0, 10) : dayBefore(value);
    return day + UTC_HOUR_PREFIX[hour]! + value.slice(13) + '.000Z';
  }
  const wallClock = legacyWallClock(value);
  return wallClock && legacyWallClockToInstant(wallClock).toISOString();
}

/** A NOT NULL DATETIME: a zero one cannot be represented. */
export function instant(value: unknown, field = 'datetime'): string {
  const result = instantOrNull(value);
  if (!result) throw new UnmappableValue(`${field}: zero or invalid datetime ${String(value)}`);
  return result;
}

/** DATE -> YYYY-MM-DD (an Istanbul calendar day, no time zone involved); null for zero dates. */
export function dayOrNull(value: unknown): string | null {
  // A valid text is already YYYY-MM-DD[ ...]: no need to format the day again.
  if (typeof value === 'string') {
    if (value.length === 10 && isPlainValidDay(value)) return value;
    return validDateText(value) && value.slice(0, 10);
  }
  const wallClock = legacyWallClock(value);
  return wallClock && dateOnly(wallClock);
}

export function day(value: unknown, field = 'date'): string {
  const result = dayOrNull(value);
  if (!result) throw new UnmappableValue(`${field}: zero or invalid date ${String(value)}`);
  return result;
}

/**
 * created_at and updated_at, NOT NULL in the API: a zero one (rows imported by hand) takes the
 * other's value; only a row where both are zero cannot be represented.
 */
export function timestamps(row: Record<string, unknown>): {
  created_at: string;
  updated_at: string;
} {
  const created = instantOrNull(row.created_at);
  const updated = instantOrNull(row.updated_at);
  const createdAt = created ?? updated;
  const updatedAt = updated ?? created;
  if (!createdAt || !updatedAt)
    throw new UnmappableValue('created_at and updated_at: both zero or invalid');
  return { created_at: createdAt, updated_at: updatedAt };
}
