import { z } from 'zod';
import {
  INSTALLMENT_PLAN_STATUSES,
  installmentPlanResource,
  PAYMENT_METHODS,
  TRANSACTION_TYPES,
  transactionResource,
} from '#api/resources/financial.js';
import { booleanFilter, checkDateRange, dayFilter, optionalId } from '../../http/filters.js';
import { listResponse, paginationQuery } from '../../http/pagination.js';

export const financialSummarySchema = z
  .strictObject({
    total_transactions: z.int(),
    total_income: z.number(),
    total_expense: z.number(),
    net_amount: z.number(),
  })
  .meta({
    id: 'FinancialSummary',
    examples: [
      { total_transactions: 640, total_income: 212400, total_expense: 58750, net_amount: 153650 },
    ],
  });

export const transactionsQuery = paginationQuery
  .extend({
    branch_id: optionalId,
    member_id: optionalId,
    start_date: dayFilter,
    end_date: dayFilter,
    transaction_type: z.enum(TRANSACTION_TYPES).optional(),
    payment_method: z.enum(PAYMENT_METHODS).optional(),
    is_cancelled: booleanFilter,
  })
  .superRefine(checkDateRange);

export const summaryQuery = z
  .object({
    branch_id: optionalId,
    start_date: dayFilter.meta({
      description:
        'Istanbul day (YYYY-MM-DD), inclusive. Without end_date too: the first day of the ' +
        'current Istanbul month; with end_date alone the range has no start.',
    }),
    end_date: dayFilter.meta({
      description:
        'Istanbul day (YYYY-MM-DD), inclusive. Without start_date too: the last day of the ' +
        'current Istanbul month; with start_date alone the range has no end.',
    }),
  })
  .superRefine(checkDateRange);

export const installmentsQuery = paginationQuery.extend({
  branch_id: optionalId,
  member_id: optionalId,
  status: z.enum(INSTALLMENT_PLAN_STATUSES).optional(),
});

export const transactionListResponse = listResponse(
  transactionResource.schema,
  'FinancialTransactionListResponse',
);
export const installmentListResponse = listResponse(
  installmentPlanResource.schema,
  'InstallmentPlanListResponse',
);
export const financialSummaryResponse = z
  .object({ success: z.boolean(), data: financialSummarySchema })
  .meta({ id: 'FinancialSummaryResponse' });
