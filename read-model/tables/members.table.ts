import { digitsOf, foldTurkish } from '#common/turkish.js';
import {
  bool,
  dayOrNull,
  decimal,
  instantOrNull,
  int,
  oneOf,
  oneOfOrNull,
  text,
  textOrNull,
  timestamps,
} from '../legacy-values.js';
import type { SyncTable } from '../table-definition.js';

/** members.full_name + ' ' + members.surname, just full_name without a surname (legacy README). */
export const MEMBER_NAME_SQL = "concat_ws(' ', s.full_name, s.surname)";
const MEMBER_NAME_READS = ['full_name', 'surname'];

export const membersTable: SyncTable = {
  name: 'members',
  from: { table: 'members', alias: 'm' },
  select: `m.id, m.full_name, m.surname, m.phone, m.email, m.tc_no, m.member_no,
    m.gender, CAST(m.birth_date AS CHAR) AS birth_date, m.branch_id, COALESCE(b.name, '') AS branch_name, m.entry_status, m.balance,
    m.freeze_status, m.status, CAST(m.registered_at AS CHAR) AS registered_at, m.address, m.qr_code, m.referral_code,
    m.is_deleted, CAST(m.created_at AS CHAR) AS created_at, CAST(m.updated_at AS CHAR) AS updated_at`,
  joins: 'LEFT JOIN branches b ON b.id = m.branch_id',
  changedAt: 'm.updated_at',
  key: 'm.id',
  branch: { column: 'branch_id' },
  columns: {
    id: 'int',
    full_name: 'text',
    surname: 'text',
    phone: 'text',
    email: 'text',
    tc_no: 'text',
    member_no: 'text',
    gender: 'text',
    birth_date: 'date',
    branch_id: 'int',
    branch_name: 'text',
    entry_status: 'bool',
    balance: 'decimal',
    freeze_status: 'bool',
    status: 'text',
    registered_at: 'instant',
    address: 'text',
    qr_code: 'text',
    referral_code: 'text',
    created_at: 'instant',
    updated_at: 'instant',
    search_text: 'text',
    phone_digits: 'text',
  },
  // A soft-deleted member no longer exists for any reader.
  isGone: (row) => bool(row.is_deleted),
  goneSql: 's.is_deleted = 1',
  computedColumns: ['search_text', 'phone_digits'],
  map: (row) => {
    const fullName = text(row.full_name);
    const surname = textOrNull(row.surname);
    const email = textOrNull(row.email);
    const phone = text(row.phone);
    const times = timestamps(row);
    return {
      id: int(row.id),
      full_name: fullName,
      surname,
      phone,
      email,
      tc_no: textOrNull(row.tc_no),
      member_no: text(row.member_no),
      gender: oneOfOrNull(row.gender, ['Erkek', 'Kadın']),
      birth_date: dayOrNull(row.birth_date),
      branch_id: int(row.branch_id),
      branch_name: text(row.branch_name),
      entry_status: bool(row.entry_status),
      balance: decimal(row.balance),
      freeze_status: bool(row.freeze_status),
      status: oneOf(row.status, ['Aktif', 'Pasif'], 'status'),
      // A zero registered_at: the member was registered when the row was created.
      registered_at: instantOrNull(row.registered_at) ?? times.created_at,
      address: textOrNull(row.address),
      qr_code: text(row.qr_code),
      referral_code: textOrNull(row.referral_code),
      ...times,
      search_text: foldTurkish([fullName, surname, email].filter(Boolean).join(' ')),
      phone_digits: digitsOf(phone),
    };
  },
  dependents: [
    {
      table: 'installment_plans',
      on: 'd.member_id = s.id',
      columns: { member_name: MEMBER_NAME_SQL },
      reads: MEMBER_NAME_READS,
    },
    {
      table: 'private_lessons',
      on: 'd.member_id = s.id',
      columns: { member_name: MEMBER_NAME_SQL, branch_id: 's.branch_id' },
      reads: [...MEMBER_NAME_READS, 'branch_id'],
    },
    {
      table: 'presence_records',
      on: 'd.member_id = s.id',
      columns: { member_name: MEMBER_NAME_SQL },
      reads: MEMBER_NAME_READS,
    },
  ],
};
