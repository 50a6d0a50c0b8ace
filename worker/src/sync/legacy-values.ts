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

/**
 * DATETIME (Istanbul wall clock) -> the ISO text of the instant it denotes; null for zero
 * datetimes. Text, not a Date: a batch travels to PostgreSQL as JSON, and JSON.stringify of Date
 * values is about ten times slower than of the same values as text
 * (docs/decisions/0002-sync-by-polling-with-look-back.md, backfill).
 */
export function instantOrNull(value: unknown): string | null {
  if (typeof value === 'string') {
    const match = validDateText(value);
    if (!match) return null;
    const [, year, month, dayOfMonth, hours, minutes, seconds] = match;
    const utcHours = Number(hours) - ISTANBUL_OFFSET_HOURS;
    // The common case, the same calendar day in UTC, is spelled from the text itself.
    if (hours !== undefined && utcHours >= 0 && hours < '24' && minutes! < '60' && seconds! < '60')
      return `${year}-${month}-${dayOfMonth}T${utcHours < 10 ? '0' : ''}${utcHours}:${minutes}:${seconds}.000Z`;
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
  if (typeof value === 'string') return validDateText(value) && value.slice(0, 10);
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
