import { z } from 'zod';
import { defineEndpoint } from '../../endpoint-services.js';
import { optionalId } from '../../http/filters.js';
import {
  activeBranches,
  dayRange,
  istanbulCalendar,
  memberCounts,
  membersRegistered,
  moneyIn,
  monthRange,
} from './statistics.read.js';

const dashboardStatsSchema = z
  .strictObject({
    total_members: z.int(),
    active_members: z.int(),
    monthly_revenue: z.number(),
    active_branches: z.int(),
  })
  .meta({
    id: 'DashboardStats',
    examples: [
      { total_members: 1830, active_members: 1244, monthly_revenue: 742300, active_branches: 5 },
    ],
  });

const dashboardDailySchema = z
  .strictObject({
    new_members_today: z.int(),
    today_revenue: z.number(),
    today_transactions: z.int(),
  })
  .meta({
    id: 'DashboardDaily',
    examples: [{ new_members_today: 4, today_revenue: 23150, today_transactions: 37 }],
  });

const branchQuery = z.object({ branch_id: optionalId });

export const getDashboardStatsEndpoint = defineEndpoint({
  operationId: 'getDashboardStats',
  group: 'dashboard',
  method: 'GET',
  path: '/dashboard/stats',
  summary: 'Genel istatistikler',
  description:
    'total_members: live members; active_members: those with status Aktif; monthly_revenue: income ' +
    '(Gelir, not cancelled, active) of the current Istanbul month; active_branches: branches with ' +
    'status Aktif (0 or 1 for a bound client).',
  access: 'dashboard:read',
  query: branchQuery,
  response: z
    .object({ success: z.boolean(), data: dashboardStatsSchema })
    .meta({ id: 'DashboardStatsResponse' }),
  tables: ['members', 'financial_transactions', 'branches'],
  handle: async ({ read, query }) => {
    const scoped = read();
    const [[total, active], money, branches] = await Promise.all([
      memberCounts(scoped, query.branch_id),
      moneyIn(scoped, query.branch_id, monthRange(istanbulCalendar())),
      activeBranches(scoped, query.branch_id),
    ]);
    return {
      success: true,
      data: {
        total_members: total,
        active_members: active,
        monthly_revenue: money.income,
        active_branches: branches,
      },
    };
  },
});

export const getDashboardDailyEndpoint = defineEndpoint({
  operationId: 'getDashboardDaily',
  group: 'dashboard',
  method: 'GET',
  path: '/dashboard/daily',
  summary: 'Bugünün özeti',
  description:
    'The current Istanbul day: members registered today (registered_at), income (Gelir, not ' +
    'cancelled, active) and the number of non-cancelled, active transactions dated today.',
  access: 'dashboard:read',
  query: branchQuery,
  response: z
    .object({ success: z.boolean(), data: dashboardDailySchema })
    .meta({ id: 'DashboardDailyResponse' }),
  tables: ['members', 'financial_transactions'],
  handle: async ({ read, query }) => {
    const scoped = read();
    const { today } = istanbulCalendar();
    const [registered, money] = await Promise.all([
      membersRegistered(scoped, query.branch_id, today),
      moneyIn(scoped, query.branch_id, dayRange(today)),
    ]);
    return {
      success: true,
      data: {
        new_members_today: registered,
        today_revenue: money.income,
        today_transactions: money.transactions,
      },
    };
  },
});
