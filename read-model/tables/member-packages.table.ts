import { day, decimal, int, text, timestamps } from '../legacy-values.js';
import type { SyncTable } from '../table-definition.js';

export const memberPackagesTable: SyncTable = {
  name: 'member_packages',
  from: { table: 'member_packages', alias: 'mp' },
  select: `mp.id, mp.member_id, mp.package_id, mp.branch_id, COALESCE(p.name, '') AS package_type_name,
    CAST(mp.start_date AS CHAR) AS start_date, CAST(mp.end_date AS CHAR) AS end_date, mp.status, mp.price_paid, CAST(mp.created_at AS CHAR) AS created_at, CAST(mp.updated_at AS CHAR) AS updated_at`,
  joins: 'LEFT JOIN packages p ON p.id = mp.package_id',
  changedAt: 'mp.updated_at',
  key: 'mp.id',
  branch: { column: 'branch_id' },
  columns: {
    id: 'int',
    member_id: 'int',
    package_id: 'int',
    branch_id: 'int',
    package_type_name: 'text',
    start_date: 'date',
    end_date: 'date',
    status: 'text',
    price_paid: 'decimal',
    created_at: 'instant',
    updated_at: 'instant',
  },
  map: (row) => ({
    id: int(row.id),
    member_id: int(row.member_id),
    package_id: int(row.package_id),
    branch_id: int(row.branch_id),
    package_type_name: text(row.package_type_name),
    start_date: day(row.start_date, 'start_date'),
    end_date: day(row.end_date, 'end_date'),
    status: text(row.status),
    price_paid: decimal(row.price_paid),
    ...timestamps(row),
  }),
};
