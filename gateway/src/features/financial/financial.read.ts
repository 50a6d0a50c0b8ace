// Financial reads, from the read model as the caller may see it.
import type { z } from 'zod';
import {
  installmentPlanResource,
  transactionResource,
} from '../../../../api/resources/financial.js';
import type { ReadModelPrisma } from '../../../../common/databases.js';
import { instantRange } from '../../http/filters.js';
import { listPage, narrowsOnlyBy } from '../../http/pagination.js';
import type { ScopedRead } from '../../http/scoped-read.js';
import type { installmentsQuery, transactionsQuery } from './financial.schemas.js';

export function listTransactions(read: ScopedRead, query: z.infer<typeof transactionsQuery>) {
  const where: ReadModelPrisma.FinancialTransactionWhereInput = {
    branch_id: query.branch_id,
    member_id: query.member_id,
    transaction_type: query.transaction_type,
    payment_method: query.payment_method,
    is_cancelled: query.is_cancelled,
    transaction_date: instantRange(query.start_date, query.end_date),
  };
  return listPage(query, {
    rows: (window) =>
      read.financialTransaction.findMany({
        where,
        orderBy: [{ transaction_date: 'desc' }, { id: 'desc' }],
        select: transactionResource.select,
        ...window,
      }),
    // By branch or over all, the exact total is kept (read-model/kept-counts.ts), not counted.
    total: () =>
      narrowsOnlyBy(query, ['branch_id'])
        ? read.sql.keptCount('financial_transactions', {
            ...(query.branch_id !== undefined ? { branchId: query.branch_id } : {}),
          })
        : read.financialTransaction.count({ where }),
    toApi: transactionResource.toApi,
  });
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
