// The generator's randomness and times: a seeded generator (the same seed draws the same club),
// valid tc_no check digits, and the dashboard's wall-clock DATETIME text.

/** Mulberry32: small, fast and deterministic. */
export function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
  };
}

export function validTcNo(first9: string): string {
  const d = first9.split('').map(Number);
  const odd = d[0]! + d[2]! + d[4]! + d[6]! + d[8]!;
  const even = d[1]! + d[3]! + d[5]! + d[7]!;
  const d10 = (((odd * 7 - even) % 10) + 10) % 10;
  const d11 = (d.reduce((a, b) => a + b, 0) + d10) % 10;
  return `${first9}${d10}${d11}`;
}

export const pad = (n: number, width = 2) => String(n).padStart(width, '0');
/** A wall-clock DATETIME string `days` before `now` (plus some seconds). */
export function wallClock(now: Date, secondsAgo: number): string {
  const t = new Date(now.getTime() - secondsAgo * 1000);
  return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
}
export const dayOf = (wall: string) => wall.slice(0, 10);

export type Random = ReturnType<typeof random>;

export const YEAR = 365 * 86400;

/** A row to insert, by column: its keys are the table's columns, in the order written. */
export type Row = Record<string, unknown>;

/** What the rows of the tables after `members` are drawn from. */
export interface Drawn {
  rnd: Random;
  /** Istanbul wall clock of "now", as a Date whose UTC fields show it. */
  now: Date;
  branchCount: number;
  memberCount: number;
  staffCount: number;
  /** Each member's branch, by member id. */
  memberBranch: number[];
}
