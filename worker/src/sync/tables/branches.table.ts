import { Prisma } from '../../../../prisma/generated/legacy/client.js';
import { foldTurkish } from '../../../../common/turkish.js';
import { dayOrNull, instant, int, text, textOrNull } from '../legacy-values.js';
import type { SyncTable } from '../table-definition.js';

export const branchesTable: SyncTable = {
  name: 'branches',
  source: Prisma.sql`SELECT b.id, b.name, b.address, b.status, b.manager_name, b.phone, b.email,
    b.founded_at, b.created_at, b.updated_at FROM branches b`,
  changedAt: 'b.updated_at',
  key: 'b.id',
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
  map: (row) => ({
    id: int(row.id),
    name: text(row.name),
    address: textOrNull(row.address),
    status: text(row.status),
    manager_name: textOrNull(row.manager_name),
    phone: textOrNull(row.phone),
    email: textOrNull(row.email),
    founded_at: dayOrNull(row.founded_at),
    created_at: instant(row.created_at),
    updated_at: instant(row.updated_at),
    search_text: foldTurkish([row.name, row.address].map(textOrNull).join(' ')),
  }),
  dependents: [
    { table: 'members', on: 'd.branch_id = s.id', columns: { branch_name: 's.name' } },
    { table: 'staff', on: 'd.branch_id = s.id', columns: { branch_name: 's.name' } },
  ],
};
