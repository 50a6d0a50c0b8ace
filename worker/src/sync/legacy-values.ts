// Turning legacy raw-query values into API-ready read-model values.
import { Prisma } from '../../../prisma/generated/legacy/client.js';
import { dateOnly, legacyWallClockToInstant } from '../../../common/legacy-time.js';

export function int(value: unknown): number {
  if (typeof value === 'bigint' || typeof value === 'number') return Number(value);
  throw new TypeError(`expected an integer, got ${typeof value}`);
}

export function intOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : int(value);
}

export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  throw new TypeError(`expected a string, got ${typeof value}`);
}

export function textOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : text(value);
}

/** TINYINT(1) 0/1 -> boolean. */
export function bool(value: unknown): boolean {
  return Number(value) === 1;
}

/** DECIMAL -> exact decimal string, so no float rounding creeps in before PostgreSQL. */
export function decimal(value: unknown): string {
  // Prisma hands DECIMAL to raw queries as a Decimal.js instance.
  if (value instanceof Prisma.Decimal || typeof value === 'number') return value.toString();
  throw new TypeError(`expected a decimal, got ${typeof value}`);
}

/** DATETIME (Istanbul wall clock) -> the instant it denotes. */
export function instant(value: unknown): Date {
  if (value instanceof Date) return legacyWallClockToInstant(value);
  throw new TypeError(`expected a DATETIME, got ${typeof value}`);
}

export function instantOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : instant(value);
}

/** DATE -> YYYY-MM-DD (an Istanbul calendar day, no time zone involved). */
export function day(value: unknown): string {
  if (value instanceof Date) return dateOnly(value);
  throw new TypeError(`expected a DATE, got ${typeof value}`);
}

export function dayOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : day(value);
}
