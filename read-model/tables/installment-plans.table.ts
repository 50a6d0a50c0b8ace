import { decimal, int, text, timestamps } from '../legacy-values.js';
import type { SyncTable } from '../table-definition.js';

export const installmentPlansTable: SyncTable = {
  name: 'installment_plans',
  from: { table: 'installment_plans', alias: 'ip' },
  select: `ip.id, ip.member_id, CONCAT_WS(' ', m.full_name, m.surname) AS member_name,
    ip.branch_id, ip.status, ip.total_amount,
    (SELECT COALESCE(SUM(i.amount), 0) FROM installments i WHERE i.plan_id = ip.id AND i.is_paid = 1)
      AS collected_amount,
    ip.created_at, ip.updated_at`,
  joins: 'LEFT JOIN members m ON m.id = ip.member_id',
  changedAt: 'ip.updated_at',
  key: 'ip.id',
  branch: { column: 'branch_id' },
  columns: {
    id: 'int',
    member_id: 'int',
    member_name: 'text',
    branch_id: 'int',
    status: 'text',
    total_amount: 'decimal',
    collected_amount: 'decimal',
    created_at: 'instant',
    updated_at: 'instant',
  },
  map: (row) => ({
    id: int(row.id),
    member_id: int(row.member_id),
    member_name: text(row.member_name),
    branch_id: int(row.branch_id),
    status: text(row.status),
    total_amount: decimal(row.total_amount),
    collected_amount: decimal(row.collected_amount),
    ...timestamps(row),
  }),
};
