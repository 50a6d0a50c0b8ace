import { foldTurkish } from '#common/turkish.js';
import { dayOrNull, int, text, textOrNull, timestamps } from '../legacy-values.js';
import type { SyncTable } from '../table-definition.js';

export const branchesTable: SyncTable = {
  name: 'branches',
  from: { table: 'branches', alias: 'b' },
  select: `b.id, b.name, b.address, b.status, b.manager_name, b.phone, b.email,
    CAST(b.founded_at AS CHAR) AS founded_at, CAST(b.created_at AS CHAR) AS created_at, CAST(b.updated_at AS CHAR) AS updated_at`,
  changedAt: 'b.updated_at',
  key: 'b.id',
  branch: { column: 'id' },
  columns: {
    id: 'int',
    name: 'text',
    address: 'text',
    status: 'text',
    manager_name: 'text',
    phone: 'text',
    email: 'text',
    founded_at: 'date',
    created_at: 'instant',
    updated_at: 'instant',
    search_text: 'text',
  },
  computedColumns: ['search_text'],
  map: (row) => ({
    id: int(row.id),
    name: text(row.name),
    address: textOrNull(row.address),
    status: text(row.status),
    manager_name: textOrNull(row.manager_name),
    phone: textOrNull(row.phone),
    email: textOrNull(row.email),
    founded_at: dayOrNull(row.founded_at),
    ...timestamps(row),
    search_text: foldTurkish([row.name, row.address].map(textOrNull).join(' ')),
  }),
  dependents: [
    {
      table: 'members',
      on: 'd.branch_id = s.id',
      columns: { branch_name: 's.name' },
      reads: ['name'],
    },
    {
      table: 'staff',
      on: 'd.branch_id = s.id',
      columns: { branch_name: 's.name' },
      reads: ['name'],
    },
  ],
};
