// Turning legacy values into API-ready read-model values. They come in the MariaDB driver's form
// (worker/src/sync/legacy-reader.ts; the gateway's member writes read the same way): DECIMAL as
// its exact text, INT as a number, BIGINT as a bigint, DATE and DATETIME as text. A value that
// cannot be represented throws UnmappableValue: its row is set aside (rejects.ts), never its
// whole table.
import {
  daysFromCivil,
  daysInMonth,
  fourDigitsAt,
  isCalendarDay,
  twoDigitsAt,
} from './calendar.js';
import { ISTANBUL_OFFSET_HOURS, legacyWallClockToInstant } from '#common/legacy-time.js';

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
  if (typeof value === 'string' && DECIMAL_TEXT.test(value)) return value;
  throw new UnmappableValue(`expected a decimal, got ${value === null ? 'null' : typeof value}`);
}

const DATE_TIME_TEXT = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2})(?:\.\d+)?)?$/;

/**
 * A legacy DATE or DATETIME, read as text (a Date cannot hold a zero date) -> its parts. Zero dates ('0000-00-00'),
 * partly zero ones ('2020-00-10') and impossible ones ('2020-02-30'), which sessions without
 * NO_ZERO_DATE / NO_ZERO_IN_DATE write, are null. Checked by arithmetic, without a Date: the
 * backfill reads millions of them.
 */
function validDateText(value: string): RegExpExecArray | null {
  const match = DATE_TIME_TEXT.exec(value);
  if (!match) throw new UnmappableValue(`unreadable date ${JSON.stringify(value)}`);
  return isCalendarDay(Number(match[1]), Number(match[2]), Number(match[3])) ? match : null;
}

/** A legacy DATE or DATETIME (see validDateText) -> its wall-clock Date; null if not valid. */
export function legacyWallClock(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
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
 * datetimes. Text, not a Date: the upsert path sends a batch to PostgreSQL as JSON, and
 * JSON.stringify of Date values is about ten times slower than of the same values as text
 * (docs/decisions/0002-sync-by-polling-with-look-back.md, first load); a first load's binary COPY
 * takes the instant's ms back by recentInstantMs.
 */
export function instantOrNull(value: unknown): string | null {
  if (typeof value === 'string') {
    // A row's DATETIMEs are often one text (created_at = updated_at, an entry's own times).
    if (value === lastDateTime.text) return lastDateTime.instant;
    const instant = instantOfDateTimeText(value);
    if (instant !== undefined) {
      lastDateTime.text = value;
      lastDateTime.instant = instant;
      return instant;
    }
  }
  const wallClock = legacyWallClock(value);
  return wallClock && legacyWallClockToInstant(wallClock).toISOString();
}

const lastDateTime: { text: unknown; instant: string | null } = { text: null, instant: null };

/**
 * The form nearly every legacy DATETIME text has, 'YYYY-MM-DD HH:MM:SS', read by character codes
 * (the RegExp's match arrays were most of a backfill's date handling) -> the ISO text of its
 * instant, null for a zero or impossible day; undefined for any other form (left to
 * legacyWallClock).
 */
function instantOfDateTimeText(value: string): string | null | undefined {
  if (
    value.length !== 19 ||
    value[4] !== '-' ||
    value[7] !== '-' ||
    value[10] !== ' ' ||
    value[13] !== ':' ||
    value[16] !== ':'
  )
    return undefined;
  let year = fourDigitsAt(value, 0);
  let month = twoDigitsAt(value, 5);
  let day = twoDigitsAt(value, 8);
  let hours = twoDigitsAt(value, 11);
  const minutes = twoDigitsAt(value, 14);
  const seconds = twoDigitsAt(value, 17);
  if (Number.isNaN(year + month + day + hours + minutes + seconds)) return undefined;
  if (!isCalendarDay(year, month, day)) return null;
  if (hours > 23 || minutes > 59 || seconds > 59) return undefined;
  hours -= ISTANBUL_OFFSET_HOURS;
  if (hours < 0) {
    // Before 03:00 in Istanbul: the day before in UTC.
    hours += 24;
    day -= 1;
    if (day === 0) {
      month -= 1;
      if (month === 0) {
        month = 12;
        year -= 1;
      }
      day = daysInMonth(year, month);
    }
    if (year < 1) return undefined;
  }
  const text = isoText(year, month, day, hours, minutes, seconds);
  const ms =
    daysFromCivil(year, month, day) * 86_400_000 + (hours * 3600 + minutes * 60 + seconds) * 1000;
  recent.texts[recent.next] = text;
  recent.ms[recent.next] = ms;
  recent.next = (recent.next + 1) % RECENT;
  return text;
}

/**
 * The instant texts instantOfDateTimeText made lately, with their Unix ms: a first load's binary
 * COPY (copy-rows.ts) writes each instant as a number, and reading back the text it had just been
 * given cost as much as making it. A ring of the last RECENT, found by the text itself.
 */
const RECENT = 16;
const recent = {
  texts: new Array<string | null>(RECENT).fill(null),
  ms: new Float64Array(RECENT),
  next: 0,
  read: 0,
};

/** The Unix ms of an instant text made lately (instantOrNull); undefined for any other text. */
export function recentInstantMs(text: string): number | undefined {
  // A row's instants are written in about the order they were mapped: the one after the last
  // found first, then the others, newest first.
  if (recent.texts[recent.read] === text) {
    const ms = recent.ms[recent.read];
    recent.read = (recent.read + 1) % RECENT;
    return ms;
  }
  for (let i = 1, at = recent.next; i <= RECENT; i++) {
    at = (at + RECENT - 1) % RECENT;
    if (recent.texts[at] === text) {
      recent.read = (at + 1) % RECENT;
      return recent.ms[at];
    }
  }
  return undefined;
}

const ZERO = 48;

/**
 * 'YYYY-MM-DDTHH:MM:SS.000Z' from its fields (year 1 to 9999), as one flat string: built by
 * concatenation it would be a rope, which the binary COPY (copy-rows.ts) then reads character by
 * character at several times the cost.
 */
function isoText(year: number, month: number, day: number, h: number, m: number, s: number) {
  return String.fromCharCode(
    ZERO + Math.floor(year / 1000),
    ZERO + (Math.floor(year / 100) % 10),
    ZERO + (Math.floor(year / 10) % 10),
    ZERO + (year % 10),
    45,
    ZERO + Math.floor(month / 10),
    ZERO + (month % 10),
    45,
    ZERO + Math.floor(day / 10),
    ZERO + (day % 10),
    84,
    ZERO + Math.floor(h / 10),
    ZERO + (h % 10),
    58,
    ZERO + Math.floor(m / 10),
    ZERO + (m % 10),
    58,
    ZERO + Math.floor(s / 10),
    ZERO + (s % 10),
    46,
    ZERO,
    ZERO,
    ZERO,
    90,
  );
}

/** A NOT NULL DATETIME: a zero one cannot be represented. */
export function instant(value: unknown, field = 'datetime'): string {
  const result = instantOrNull(value);
  if (!result) throw new UnmappableValue(`${field}: zero or invalid datetime ${String(value)}`);
  return result;
}

/** DATE -> YYYY-MM-DD (an Istanbul calendar day, no time zone involved); null for zero dates. */
export function dayOrNull(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string')
    throw new UnmappableValue(`unreadable date ${JSON.stringify(value)}`);
  // A valid text is already YYYY-MM-DD[ ...]: no need to format the day again. A DATE's own
  // text is read by character codes, as instantOfDateTimeText reads a DATETIME's.
  if (value.length === 10 && value[4] === '-' && value[7] === '-') {
    const [year, month, day] = [
      fourDigitsAt(value, 0),
      twoDigitsAt(value, 5),
      twoDigitsAt(value, 8),
    ];
    if (!Number.isNaN(year + month + day)) return isCalendarDay(year, month, day) ? value : null;
  }
  return validDateText(value) && value.slice(0, 10);
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
