import { branchResource } from '#api/resources/branches.js';
import { equalities } from '#api/scoped-sql.js';
import { sql } from '#read-model/sql.js';
import { defineEndpoint } from '../../endpoint-services.js';
import { notFound } from '../../http/errors.js';
import { escapeLike, idParams } from '../../http/filters.js';
import { foldTurkish } from '#common/turkish.js';
import { listAnswer, pageWindow } from '../../http/pagination.js';
import {
  activePackages,
  istanbulCalendar,
  memberCounts,
  moneyIn,
  monthRange,
} from '../dashboard/statistics.read.js';
import {
  branchesQuery,
  branchListResponse,
  branchResponse,
  branchStatsResponse,
} from './branches.schemas.js';

const branchNotFound = () => notFound('Şube bulunamadı.');

export const listBranchesEndpoint = defineEndpoint({
  operationId: 'listBranches',
  group: 'branches',
  method: 'GET',
  path: '/branches',
  summary: 'Şubeleri listeler',
  description: 'Sorted by id ascending. A bound client sees its own branch only.',
  access: 'branches:read',
  query: branchesQuery,
  response: branchListResponse,
  tables: ['branches'],
  handle: async ({ read, query }) => {
    // A prepared statement through ScopedRead.sql: a partner's app lists branches on every start.
    const where = equalities({ status: query.status });
    if (query.search) {
      where.push(sql`search_text LIKE ${`%${escapeLike(foldTurkish(query.search))}%`}`);
    }
    const found = await read().sql.page({
      table: 'branches',
      where,
      resource: branchResource,
      orderBy: 'id',
      window: pageWindow(query),
    });
    return listAnswer(query, found);
  },
});

export const getBranchEndpoint = defineEndpoint({
  operationId: 'getBranch',
  group: 'branches',
  method: 'GET',
  path: '/branches/{id}',
  summary: 'Bir şubeyi getirir',
  description: 'Another branch answers 404 to a bound client.',
  access: 'branches:read',
  params: idParams,
  response: branchResponse,
  tables: ['branches'],
  handle: async ({ read, params }) => {
    const row = await read().branch.findUnique({
      where: { id: params.id },
      select: branchResource.select,
    });
    if (!row) throw branchNotFound();
    return { success: true, data: branchResource.toApi(row) };
  },
});

export const getBranchStatsEndpoint = defineEndpoint({
  operationId: 'getBranchStats',
  group: 'branches',
  method: 'GET',
  path: '/branches/{id}/stats',
  summary: 'Şube istatistikleri',
  description:
    'total_members: live members; active_members: live members with status Aktif; active_packages: ' +
    'member packages with status Aktif ending today or later; monthly_revenue: income (Gelir, not ' +
    'cancelled, active) of the current Istanbul month.',
  access: 'branches:read',
  params: idParams,
  response: branchStatsResponse,
  tables: ['branches', 'members', 'member_packages', 'financial_transactions'],
  handle: async ({ read, params }) => {
    const scoped = read();
    if ((await scoped.branch.count({ where: { id: params.id } })) === 0) throw branchNotFound();
    const calendar = istanbulCalendar();
    const [[total, active], packages, money] = await Promise.all([
      memberCounts(scoped, params.id),
      activePackages(scoped, params.id, calendar.today),
      moneyIn(scoped, params.id, monthRange(calendar)),
    ]);
    return {
      success: true,
      data: {
        total_members: total,
        active_members: active,
        active_packages: packages,
        monthly_revenue: money.income,
      },
    };
  },
});
