// A member's version, the strong ETag of GET /members/{id} and of write answers: a hash of the
// member's content, so two updates within one second (DATETIME precision) still change it.
// branch_name is left out: it is the branch's, and a rename does not change the member.
import { createHash } from 'node:crypto';
import type { ReadModelRow } from '../../../../worker/src/sync/table-definition.js';
import type { Member } from './members.schemas.js';

const VERSIONED_FIELDS = [
  'id',
  'full_name',
  'surname',
  'phone',
  'email',
  'tc_no',
  'member_no',
  'gender',
  'birth_date',
  'branch_id',
  'entry_status',
  'balance',
  'freeze_status',
  'status',
  'registered_at',
  'address',
  'qr_code',
  'referral_code',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof Member)[];

export function memberETag(member: Member): string {
  const content = JSON.stringify(VERSIONED_FIELDS.map((field) => member[field]));
  return `"${createHash('sha256').update(content).digest('base64url').slice(0, 27)}"`;
}

const iso = (value: ReadModelRow[string]) => (value as Date).toISOString();

/** A members row as the sync maps it (members.table.ts) -> the API's Member. */
export function mappedToMember(row: ReadModelRow): Member {
  return {
    id: row.id as number,
    full_name: row.full_name as string,
    surname: row.surname as string | null,
    phone: row.phone as string,
    email: row.email as string | null,
    tc_no: row.tc_no as string | null,
    member_no: row.member_no as string,
    gender: row.gender as Member['gender'],
    birth_date: row.birth_date as string | null,
    branch_id: row.branch_id as number,
    branch_name: row.branch_name as string,
    entry_status: row.entry_status as boolean,
    balance: Number(row.balance),
    freeze_status: row.freeze_status as boolean,
    status: row.status as Member['status'],
    registered_at: iso(row.registered_at ?? null),
    address: row.address as string | null,
    qr_code: row.qr_code as string,
    referral_code: row.referral_code as string | null,
    created_at: iso(row.created_at ?? null),
    updated_at: iso(row.updated_at ?? null),
  };
}

/** If-Match: `*` or a list of strong ETags; weak ones never match (RFC 9110 13.1.1). */
export function ifMatchAccepts(header: string, current: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim() === current);
}
