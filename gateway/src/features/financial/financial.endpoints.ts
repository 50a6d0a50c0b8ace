import { defineEndpoint } from '../../endpoint-services.js';
import { istanbulCalendar, moneyIn } from '../dashboard/statistics.read.js';
import { listInstallmentPlans, listTransactions } from './financial.read.js';
import {
  financialSummaryResponse,
  installmentListResponse,
  installmentsQuery,
  summaryQuery,
  transactionListResponse,
  transactionsQuery,
} from './financial.schemas.js';

export const listTransactionsEndpoint = defineEndpoint({
  operationId: 'listTransactions',
  group: 'financial',
  method: 'GET',
  path: '/financial/transactions',
  summary: 'Finansal hareketleri listeler',
  description:
    'Newest first (transaction_date, then id, descending). Dates are Istanbul days, inclusive.',
  access: 'financial:read',
  query: transactionsQuery,
  response: transactionListResponse,
  tables: ['financial_transactions', 'staff'],
  handle: ({ read, query }) => listTransactions(read(), query),
});

export const getFinancialSummaryEndpoint = defineEndpoint({
  operationId: 'getFinancialSummary',
  group: 'financial',
  method: 'GET',
  path: '/financial/summary',
  summary: 'Gelir ve gider özeti',
  description:
    'Non-cancelled, active transactions counted on their transaction_date within the Istanbul days ' +
    'given (default: the current Istanbul month). Income is Gelir, expense Gider; net_amount = ' +
    'total_income - total_expense; total_transactions counts both.',
  access: 'financial:read',
  query: summaryQuery,
  response: financialSummaryResponse,
  tables: ['financial_transactions'],
  handle: async ({ read, query }) => {
    const month = istanbulCalendar();
    const start = query.start_date ?? (query.end_date ? undefined : month.monthStart);
    const end = query.end_date ?? (query.start_date ? undefined : month.monthEnd);
    const money = await moneyIn(read(), query.branch_id, {
      ...(start ? { from: start } : {}),
      ...(end ? { to: end } : {}),
    });
    return {
      success: true,
      data: {
        total_transactions: money.transactions,
        total_income: money.income,
        total_expense: money.expense,
        net_amount: money.net,
      },
    };
  },
});

export const listInstallmentsEndpoint = defineEndpoint({
  operationId: 'listInstallments',
  group: 'financial',
  method: 'GET',
  path: '/financial/installments',
  summary: 'Taksit planlarını listeler',
  description: 'Sorted by id ascending. collected_amount is the sum of the paid instalments.',
  access: 'financial:read',
  query: installmentsQuery,
  response: installmentListResponse,
  tables: ['installment_plans', 'installments', 'members'],
  handle: ({ read, query }) => listInstallmentPlans(read(), query),
});
