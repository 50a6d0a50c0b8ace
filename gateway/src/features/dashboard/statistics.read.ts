// The statistics, as aggregates computed by PostgreSQL over the read model (never rows loaded
// into the process), with the definitions of the dashboard and Istanbul days and months. The
// ScopedRead already limits a bound client to its branch; `branchId` narrows further.
import { istanbulDay } from '../../../../common/legacy-time.js';
import { instantRange } from '../../http/filters.js';
import type { ScopedRead } from '../../http/scoped-read.js';

type Range = { gte?: Date; lt?: Date } | undefined;
type BranchWhere = { branch_id?: number };

const branchWhere = (branchId: number | undefined): BranchWhere =>
  branchId === undefined ? {} : { branch_id: branchId };

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
export async function moneyIn(read: ScopedRead, branchId: number | undefined, range: Range) {
  const groups = await read.financialTransaction.groupBy({
    by: ['transaction_type'],
    where: {
      ...branchWhere(branchId),
      is_cancelled: false,
      is_active: true,
      ...(range ? { transaction_date: range } : {}),
    },
    _sum: { amount: true },
    _count: { _all: true },
  });
  const sumOf = (type: string) => groups.find((g) => g.transaction_type === type)?._sum.amount;
  const income = sumOf('Gelir');
  const expense = sumOf('Gider');
  return {
    transactions: groups.reduce((n, g) => n + g._count._all, 0),
    income: income?.toNumber() ?? 0,
    expense: expense?.toNumber() ?? 0,
    // Decimal arithmetic, so the difference carries no float rounding.
    net: income
      ? (expense ? income.minus(expense) : income).toNumber()
      : -(expense?.toNumber() ?? 0),
  };
}

export function memberCounts(read: ScopedRead, branchId: number | undefined) {
  const where = branchWhere(branchId);
  return Promise.all([
    read.member.count({ where }),
    read.member.count({ where: { ...where, status: 'Aktif' } }),
  ]);
}

/** Packages with status Aktif whose end_date is today or later (Istanbul). */
export function activePackages(read: ScopedRead, branchId: number | undefined, today: string) {
  return read.memberPackage.count({
    where: {
      ...branchWhere(branchId),
      status: 'Aktif',
      end_date: { gte: new Date(`${today}T00:00:00Z`) },
    },
  });
}

export function activeBranches(read: ScopedRead, branchId: number | undefined) {
  return read.branch.count({
    where: { status: 'Aktif', ...(branchId === undefined ? {} : { id: branchId }) },
  });
}

export const monthRange = (c: ReturnType<typeof istanbulCalendar>) =>
  instantRange(c.monthStart, c.monthEnd);
export const dayRange = (day: string) => instantRange(day, day);

/** Members registered on an Istanbul day. */
export function membersRegistered(read: ScopedRead, branchId: number | undefined, day: string) {
  return read.member.count({ where: { ...branchWhere(branchId), registered_at: dayRange(day) } });
}
