// Member reads, from the read model only.
import type { ReadModelClient, ReadModelPrisma } from '../../../../common/databases.js';
import { dateOnly } from '../../../../common/legacy-time.js';
import { foldTurkish, phoneSearchDigits } from '../../../../common/turkish.js';
import { branchFilter, canSee, type DataScope } from '../../http/data-scope.js';
import { pageWindow } from '../../http/pagination.js';
import { likeLiteral } from '../../http/search.js';
import type { ListMembersQuery, Member } from './members.schemas.js';

type MemberRow = ReadModelPrisma.MemberGetPayload<object>;

const STATUS_VALUES = { active: 'Aktif', passive: 'Pasif' } as const;

export function toMember(row: MemberRow): Member {
  return {
    id: row.id,
    full_name: row.full_name,
    surname: row.surname,
    phone: row.phone,
    email: row.email,
    tc_no: row.tc_no,
    member_no: row.member_no,
    gender: row.gender as Member['gender'],
    birth_date: row.birth_date ? dateOnly(row.birth_date) : null,
    branch_id: row.branch_id,
    branch_name: row.branch_name,
    entry_status: row.entry_status,
    balance: row.balance.toNumber(),
    freeze_status: row.freeze_status,
    status: row.status as Member['status'],
    registered_at: row.registered_at.toISOString(),
    address: row.address,
    qr_code: row.qr_code,
    referral_code: row.referral_code,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function searchCondition(search: string): ReadModelPrisma.MemberWhereInput {
  const folded = foldTurkish(search);
  const digits = phoneSearchDigits(search);
  const conditions: ReadModelPrisma.MemberWhereInput[] = [
    { search_text: { contains: likeLiteral(folded) } },
  ];
  if (digits) conditions.push({ phone_digits: { contains: digits } });
  return { OR: conditions };
}

export async function listMembers(db: ReadModelClient, scope: DataScope, query: ListMembersQuery) {
  const branchId = branchFilter(scope, query.branch_id);
  const where: ReadModelPrisma.MemberWhereInput = {
    ...(branchId !== undefined ? { branch_id: branchId } : {}),
    ...(query.status ? { status: STATUS_VALUES[query.status] } : {}),
    ...(query.search ? searchCondition(query.search) : {}),
  };
  const [rows, total] = await Promise.all([
    db.member.findMany({ where, orderBy: { id: 'asc' }, ...pageWindow(query) }),
    db.member.count({ where }),
  ]);
  return { members: rows.map(toMember), total };
}

export async function findMember(db: ReadModelClient, scope: DataScope, id: number) {
  const row = await db.member.findUnique({ where: { id } });
  return row && canSee(scope, row.branch_id) ? toMember(row) : null;
}
