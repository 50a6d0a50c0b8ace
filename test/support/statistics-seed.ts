// Legacy data for the statistics test, written as the dashboard writes it and placed around the
// edges the statistics depend on: Istanbul midnight today, the start of the Istanbul month,
// cancelled and inactive transactions, packages ending yesterday / today / tomorrow in every
// status, passive and soft-deleted members, a passive branch.
import type { LegacyDashboard } from './legacy-dashboard.js';
import type { Calendar } from './legacy-statistics.js';

export interface SeededBranches {
  /** Active branch holding most of the edge cases. */
  a: number;
  /** Another active branch. */
  b: number;
  /** A passive branch whose only money is today's 0.10 + 0.20 income and 0.30 expense. */
  c: number;
}

type Transaction = [type: 'Gelir' | 'Gider', amount: string, at: string, extra?: object];

function transactions(dashboard: LegacyDashboard, branch: number, rows: Transaction[]) {
  return Promise.all(
    rows.map(([type, amount, at, extra]) =>
      dashboard.insert('financial_transactions', {
        transaction_type: type,
        transaction_code: type === 'Gelir' ? 'PAKET_SATIS' : 'GIDER',
        amount,
        payment_method: 'Nakit',
        branch_id: branch,
        transaction_date: at,
        ...extra,
      }),
    ),
  );
}

async function seedMoney(dashboard: LegacyDashboard, s: SeededBranches, c: Calendar, gone: number) {
  const cancelled = { is_cancelled: 1, cancelled_at: `${c.today} 00:04:00`, cancel_reason: 'hata' };
  await transactions(dashboard, s.a, [
    ['Gelir', '0.10', `${c.today} 00:00:00`],
    ['Gelir', '100.10', `${c.today} 00:01:00`],
    ['Gider', '50.05', `${c.today} 00:00:30`],
    ['Gelir', '0.20', `${c.today} 23:59:59`],
    ['Gelir', '10000.00', `${c.today} 00:02:00`, cancelled],
    ['Gelir', '20000.00', `${c.today} 00:03:00`, { is_active: 0 }],
    ['Gider', '3000.00', `${c.today} 00:02:00`, cancelled],
    ['Gelir', '200.20', `${c.yesterday} 23:59:00`],
    ['Gelir', '5.55', `${c.yesterday} 23:59:59`, { member_id: gone }],
    ['Gelir', '300.33', `${c.monthStart} 00:01:00`],
    ['Gelir', '400.44', `${c.previousMonthEnd} 23:59:00`],
    ['Gider', '70.07', `${c.previousMonthEnd} 23:59:59`],
    ['Gelir', '1234567.89', `${c.tomorrow} 00:01:00`],
  ]);
  await transactions(dashboard, s.b, [
    ['Gelir', '1000.01', `${c.today} 00:01:00`],
    ['Gider', '99.99', `${c.monthStart} 00:00:00`],
    ['Gelir', '7.77', `${c.yesterday} 23:59:00`],
  ]);
  await transactions(dashboard, s.c, [
    ['Gelir', '0.10', `${c.today} 00:05:00`],
    ['Gelir', '0.20', `${c.today} 00:05:00`],
    ['Gider', '0.30', `${c.today} 00:05:00`],
  ]);
}

async function seedMembers(dashboard: LegacyDashboard, s: SeededBranches, c: Calendar) {
  const member = (branch: number, values: object = {}) =>
    dashboard.insertMember({ branch_id: branch, ...values });
  const ids = {
    first: await member(s.a, { registered_at: `${c.today} 00:00:30` }),
    lateYesterday: await member(s.a, { registered_at: `${c.yesterday} 23:59:30` }),
    passive: await member(s.a, { status: 'Pasif', registered_at: `${c.today} 00:01:00` }),
    gone: await member(s.a, { is_deleted: 1, registered_at: `${c.today} 00:02:00` }),
  };
  await member(s.a); // registered now
  await member(s.a, { status: 'Pasif', is_deleted: 1, registered_at: `${c.yesterday} 12:00:00` });
  await member(s.a, { registered_at: `${c.previousMonthEnd} 12:00:00` });
  const other = await member(s.b, { registered_at: `${c.today} 00:00:00` });
  await member(s.b, { status: 'Pasif', registered_at: `${c.yesterday} 23:59:59` });
  await member(s.b, { is_deleted: 1, registered_at: `${c.today} 00:03:00` });
  const inPassiveBranch = await member(s.c, { registered_at: `${c.today} 00:04:00` });
  await member(s.c, { status: 'Pasif' });
  return { ...ids, other, inPassiveBranch };
}

type Members = Awaited<ReturnType<typeof seedMembers>>;

async function seedPackages(
  dashboard: LegacyDashboard,
  s: SeededBranches,
  c: Calendar,
  m: Members,
) {
  const packageId = await dashboard.insert('packages', { name: 'Aylık', price: '500.00' });
  const sold = (branch: number, member: number, status: string, end: string) =>
    dashboard.insert('member_packages', {
      member_id: member,
      package_id: packageId,
      branch_id: branch,
      start_date: c.previousMonthEnd,
      end_date: end,
      status,
      price_paid: '500.00',
    });
  await sold(s.a, m.first, 'Aktif', c.yesterday);
  await sold(s.a, m.first, 'Aktif', c.today);
  await sold(s.a, m.lateYesterday, 'Aktif', c.tomorrow);
  await sold(s.a, m.passive, 'Aktif', c.today);
  for (const status of ['Pasif', 'Donduruldu', 'Süresi Doldu', 'İptal']) {
    await sold(s.a, m.lateYesterday, status, c.tomorrow);
  }
  await sold(s.b, m.other, 'Aktif', c.tomorrow);
  await sold(s.b, m.other, 'Aktif', c.yesterday);
  await sold(s.c, m.inPassiveBranch, 'Aktif', c.today);
}

export async function seedStatistics(
  dashboard: LegacyDashboard,
  calendar: Calendar,
): Promise<SeededBranches> {
  const branches = {
    a: await dashboard.insertBranch(),
    b: await dashboard.insertBranch(),
    c: await dashboard.insertBranch({ status: 'Pasif' }),
  };
  const members = await seedMembers(dashboard, branches, calendar);
  await seedMoney(dashboard, branches, calendar, members.gone);
  await seedPackages(dashboard, branches, calendar, members);
  return branches;
}
