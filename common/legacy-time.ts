// The dashboard stores DATETIME as Istanbul wall-clock time (UTC+03:00 all year, no DST since
// 2016). Prisma reads and writes DATETIME as if it were UTC, so a value read from the legacy
// database is a "wall-clock Date": its UTC fields show Istanbul time. These helpers apply that
// shift; the one other place is the sync's reading of DATETIME texts by character codes
// (read-model/legacy-values.ts), checked against them by property tests.

export const ISTANBUL_OFFSET_HOURS = 3;
const ISTANBUL_OFFSET_MS = ISTANBUL_OFFSET_HOURS * 60 * 60 * 1000;

/** Legacy DATETIME (as read through Prisma) -> the real instant. */
export function legacyWallClockToInstant(wallClock: Date): Date {
  return new Date(wallClock.getTime() - ISTANBUL_OFFSET_MS);
}

/** A real instant -> the legacy DATETIME value that denotes it (for writes and comparisons). */
export function instantToLegacyWallClock(instant: Date): Date {
  return new Date(instant.getTime() + ISTANBUL_OFFSET_MS);
}

/** The Istanbul calendar day of an instant, as YYYY-MM-DD. */
export function istanbulDay(instant: Date): string {
  return instantToLegacyWallClock(instant).toISOString().slice(0, 10);
}

/** A Date from a DATE column (midnight UTC of the stored day) -> YYYY-MM-DD. */
export function dateOnly(value: Date): string {
  return value.toISOString().slice(0, 10);
}
