// The statistics, with the definitions of the dashboard and Istanbul days and months, read from
// what the read model keeps (read-model/kept-counts.ts): counts per branch and status, and sums
// per branch and Istanbul day, written in the same transactions as the rows. A statistic is a sum
// over a few rows, whatever the size of the club. The ScopedRead already limits a bound client to
// its branch; `branchId` narrows further.
import { equalities } from '#api/scoped-sql.js';
import { istanbulDay } from '#common/legacy-time.js';
import type { ScopedRead } from '../../http/scoped-read.js';

/** Istanbul calendar days, inclusive; either end open when absent. */
export interface DayRange {
  from?: string;
  to?: string;
}

const onBranch = (branchId: number | undefined) => (branchId === undefined ? {} : { branchId });

/** Today and this month as Istanbul calendar days (YYYY-MM-DD). */
export function istanbulCalendar(now = new Date()) {
  const today = istanbulDay(now);
  const [year, month] = today.split('-').map(Number) as [number, number];
  const monthStart = `${today.slice(0, 7)}-01`;
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const monthEnd = `${today.slice(0, 7)}-${String(lastDay).padStart(2, '0')}`;
  return { today, monthStart, monthEnd };
}

/**
 * Money of non-cancelled, active transactions counted on their transaction_date: income (Gelir),
 * expense (Gider), and how many there are of any type.
 */
export async function moneyIn(read: ScopedRead, branchId: number | undefined, days: DayRange) {
  const sums = await read.sql.daySums('financial_transactions', { ...onBranch(branchId), ...days });
  const centsOf = (type: string) => cents(sums.find((s) => s.kind === `money:${type}`)?.amount);
  const income = centsOf('Gelir');
  const expense = centsOf('Gider');
  return {
    transactions: sums.reduce((n, s) => n + s.n, 0),
    income: amount(income),
    expense: amount(expense),
    // In whole cents, so the difference carries no float rounding.
    net: amount(income - expense),
  };
}

/** A sum of DECIMAL(12,2) amounts as PostgreSQL writes it ("-2.50", "742300.10") in cents. */
function cents(text = '0'): bigint {
  const [whole = '0', fraction = ''] = text.replace('-', '').split('.');
  const value = BigInt(whole) * 100n + BigInt(`${fraction}00`.slice(0, 2));
  return text.startsWith('-') ? -value : value;
}

/** Cents as the API's number: the double nearest the exact amount, as parsing its text gives. */
const amount = (inCents: bigint) => Number(inCents) / 100;

export function memberCounts(read: ScopedRead, branchId: number | undefined) {
  return Promise.all([
    read.sql.keptCount('members', onBranch(branchId)),
    read.sql.keptCount('members', { ...onBranch(branchId), status: 'Aktif' }),
  ]);
}

/** Packages with status Aktif whose end_date is today or later (Istanbul). */
export async function activePackages(
  read: ScopedRead,
  branchId: number | undefined,
  today: string,
) {
  const [sum] = await read.sql.daySums('member_packages', { ...onBranch(branchId), from: today });
  return sum?.n ?? 0;
}

/** Branches with status Aktif: a count over the few branch rows, as a prepared statement. */
export function activeBranches(read: ScopedRead, branchId: number | undefined) {
  const where = equalities({ status: 'Aktif', id: branchId });
  return read.sql.count({ table: 'branches', where });
}

export const monthRange = (c: ReturnType<typeof istanbulCalendar>): DayRange => ({
  from: c.monthStart,
  to: c.monthEnd,
});
export const dayRange = (day: string): DayRange => ({ from: day, to: day });

/** Members registered on an Istanbul day. */
export async function membersRegistered(
  read: ScopedRead,
  branchId: number | undefined,
  day: string,
) {
  const [sum] = await read.sql.daySums('members', { ...onBranch(branchId), ...dayRange(day) });
  return sum?.n ?? 0;
}
