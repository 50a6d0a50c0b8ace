import { bool, decimal, int, intOrNull, text, timestamps } from '../legacy-values.js';
import type { SyncTable } from '../table-definition.js';

export const packagesTable: SyncTable = {
  name: 'packages',
  from: { table: 'packages', alias: 'p' },
  select: `p.id, p.name, p.price, p.duration_days, p.duration_months, p.is_active,
    p.sort_order, CAST(p.created_at AS CHAR) AS created_at, CAST(p.updated_at AS CHAR) AS updated_at`,
  changedAt: 'p.updated_at',
  key: 'p.id',
  columns: {
    id: 'int',
    name: 'text',
    price: 'decimal',
    duration_days: 'int',
    duration_months: 'int',
    is_active: 'bool',
    sort_order: 'int',
    created_at: 'instant',
    updated_at: 'instant',
  },
  map: (row) => ({
    id: int(row.id),
    name: text(row.name),
    price: decimal(row.price),
    duration_days: intOrNull(row.duration_days),
    duration_months: intOrNull(row.duration_months),
    is_active: bool(row.is_active),
    sort_order: int(row.sort_order),
    ...timestamps(row),
  }),
  dependents: [
    {
      table: 'member_packages',
      on: 'd.package_id = s.id',
      columns: { package_type_name: 's.name' },
      reads: ['name'],
    },
    {
      table: 'private_lessons',
      on: 'd.package_id = s.id',
      columns: { package_name: 's.name' },
      reads: ['name'],
    },
  ],
};
