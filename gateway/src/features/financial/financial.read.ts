// Financial reads, from the read model as the caller may see it.
import type { z } from 'zod';
import { installmentPlanResource, transactionResource } from '#api/resources/financial.js';
import { equalities } from '#api/scoped-sql.js';
import type { ReadModelPrisma } from '#common/databases.js';
import { sql } from '#read-model/sql.js';
import { instantRange } from '../../http/filters.js';
import { listAnswer, listPage, narrowsOnlyBy, pageWindow } from '../../http/pagination.js';
import type { ScopedRead } from '../../http/scoped-read.js';
import type { installmentsQuery, transactionsQuery } from './financial.schemas.js';

/**
 * A hot list (a branch's till, a member's history): a prepared statement through ScopedRead.sql,
 * without the ORM's per-query cost (docs/decisions/0005-fast-hot-path.md), newest first.
 */
export async function listTransactions(read: ScopedRead, query: z.infer<typeof transactionsQuery>) {
  const where = equalities({
    branch_id: query.branch_id,
    member_id: query.member_id,
    transaction_type: query.transaction_type,
    payment_method: query.payment_method,
    is_cancelled: query.is_cancelled,
  });
  const dates = instantRange(query.start_date, query.end_date);
  if (dates?.gte) where.push(sql`transaction_date >= ${dates.gte}`);
  if (dates?.lt) where.push(sql`transaction_date < ${dates.lt}`);
  const found = await read.sql.page({
    table: 'financial_transactions',
    where,
    resource: transactionResource,
    orderBy: 'transaction_date DESC, id DESC',
    window: pageWindow(query),
    // By branch or over all, the exact total is kept (read-model/kept-counts.ts), not counted.
    ...(narrowsOnlyBy(query, ['branch_id'])
      ? {
          kept: {
            table: 'financial_transactions' as const,
            ...(query.branch_id !== undefined ? { branchId: query.branch_id } : {}),
          },
        }
      : {}),
  });
  return listAnswer(query, found);
}

export function listInstallmentPlans(read: ScopedRead, query: z.infer<typeof installmentsQuery>) {
  const where: ReadModelPrisma.InstallmentPlanWhereInput = {
    branch_id: query.branch_id,
    member_id: query.member_id,
    status: query.status,
  };
  return listPage(query, {
    rows: (window) =>
      read.installmentPlan.findMany({
        where,
        orderBy: { id: 'asc' },
        select: installmentPlanResource.select,
        ...window,
      }),
    total: () => read.installmentPlan.count({ where }),
    toApi: installmentPlanResource.toApi,
  });
}
