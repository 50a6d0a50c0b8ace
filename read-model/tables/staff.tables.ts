import { foldTurkish } from '#common/turkish.js';
import { bool, instantOrNull, int, text, timestamps } from '../legacy-values.js';
import type { SyncTable } from '../table-definition.js';

export const rolesTable: SyncTable = {
  name: 'roles',
  from: { table: 'roles', alias: 'r' },
  select: `r.id, r.name`,
  // No updated_at: roles change rarely, in place.
  changedAt: null,
  key: 'r.id',
  columns: { id: 'int', name: 'text' },
  map: (row) => ({ id: int(row.id), name: text(row.name) }),
  dependents: [
    { table: 'staff', on: 'd.role_id = s.id', columns: { role_name: 's.name' }, reads: ['name'] },
  ],
};

// password_hash and remember_token are never selected: they must not leave the dashboard's database.
export const staffTable: SyncTable = {
  name: 'staff',
  from: { table: 'staff', alias: 'st' },
  select: `st.id, st.full_name, st.username, st.email, st.phone, st.branch_id,
    COALESCE(b.name, '') AS branch_name, st.role_id, COALESCE(r.name, '') AS role_name, st.is_active, CAST(st.last_login AS CHAR) AS last_login, CAST(st.created_at AS CHAR) AS created_at,
    CAST(st.updated_at AS CHAR) AS updated_at`,
  joins: 'LEFT JOIN branches b ON b.id = st.branch_id LEFT JOIN roles r ON r.id = st.role_id',
  changedAt: 'st.updated_at',
  key: 'st.id',
  branch: { column: 'branch_id' },
  columns: {
    id: 'int',
    full_name: 'text',
    username: 'text',
    email: 'text',
    phone: 'text',
    branch_id: 'int',
    branch_name: 'text',
    role_id: 'int',
    role_name: 'text',
    is_active: 'bool',
    last_login: 'instant',
    created_at: 'instant',
    updated_at: 'instant',
    search_text: 'text',
  },
  computedColumns: ['search_text'],
  map: (row) => ({
    id: int(row.id),
    full_name: text(row.full_name),
    username: text(row.username),
    email: text(row.email),
    phone: text(row.phone),
    branch_id: int(row.branch_id),
    branch_name: text(row.branch_name),
    role_id: int(row.role_id),
    role_name: text(row.role_name),
    is_active: bool(row.is_active),
    last_login: instantOrNull(row.last_login),
    ...timestamps(row),
    search_text: foldTurkish([row.full_name, row.username, row.email].map(text).join(' ')),
  }),
  dependents: [
    {
      table: 'financial_transactions',
      on: 'd.staff_id = s.id',
      columns: { staff_name: 's.full_name' },
      reads: ['full_name'],
    },
  ],
};
