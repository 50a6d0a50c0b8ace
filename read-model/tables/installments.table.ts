import { bool, day, decimal, instantOrNull, int, timestamps } from '../legacy-values.js';
import type { SyncTable } from '../table-definition.js';

export const installmentsTable: SyncTable = {
  name: 'installments',
  from: { table: 'installments', alias: 'i' },
  select: `i.id, i.plan_id, CAST(i.due_date AS CHAR) AS due_date, i.amount, i.is_paid, CAST(i.paid_at AS CHAR) AS paid_at, CAST(i.created_at AS CHAR) AS created_at,
    CAST(i.updated_at AS CHAR) AS updated_at`,
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
    due_date: day(row.due_date, 'due_date'),
    amount: decimal(row.amount),
    is_paid: bool(row.is_paid),
    paid_at: instantOrNull(row.paid_at),
    ...timestamps(row),
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
      reads: ['plan_id'],
      lookups: { installments: ['plan_id'] },
    },
  ],
};
