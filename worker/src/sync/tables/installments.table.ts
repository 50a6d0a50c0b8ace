import { Prisma } from '../../../../prisma/generated/legacy/client.js';
import { bool, day, decimal, instant, instantOrNull, int } from '../legacy-values.js';
import type { SyncTable } from '../table-definition.js';

export const installmentsTable: SyncTable = {
  name: 'installments',
  source: Prisma.sql`SELECT i.id, i.plan_id, i.due_date, i.amount, i.is_paid, i.paid_at, i.created_at,
    i.updated_at FROM installments i`,
  changedAt: 'i.updated_at',
  key: 'i.id',
  columns: {
    id: 'int',
    plan_id: 'int',
    due_date: 'date',
    amount: 'decimal',
    is_paid: 'bool',
    paid_at: 'instant',
    created_at: 'instant',
    updated_at: 'instant',
  },
  map: (row) => ({
    id: int(row.id),
    plan_id: int(row.plan_id),
    due_date: day(row.due_date),
    amount: decimal(row.amount),
    is_paid: bool(row.is_paid),
    paid_at: instantOrNull(row.paid_at),
    created_at: instant(row.created_at),
    updated_at: instant(row.updated_at),
  }),
  dependents: [
    {
      table: 'installment_plans',
      on: 'd.id = s.plan_id',
      // Summed from the read model's copy of the plan's instalments, written just before.
      columns: {
        collected_amount:
          '(SELECT COALESCE(SUM(i.amount), 0) FROM installments i WHERE i.plan_id = d.id AND i.is_paid)',
      },
    },
  ],
};
