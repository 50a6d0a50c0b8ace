// Member reads, from the read model as the caller may see it.
import type { ReadModelPrisma } from '../../../../common/databases.js';
import { foldedSearch, instantRange, phoneDigitsSearch } from '../../http/filters.js';
import { listPage } from '../../http/pagination.js';
import type { ScopedRead } from '../../http/scoped-read.js';
import { transactionResource } from '../financial/financial.schemas.js';
import type { z } from 'zod';
import {
  memberPackageResource,
  memberResource,
  type ListMembersQuery,
  type memberFinancialQuery,
  type memberPackagesQuery,
} from './members.schemas.js';

const STATUS_VALUES = { active: 'Aktif', passive: 'Pasif' } as const;

function searchCondition(search: string): ReadModelPrisma.MemberWhereInput {
  const phone = phoneDigitsSearch(search);
  return { OR: [foldedSearch(search), ...(phone ? [phone] : [])] };
}

export function listMembers(read: ScopedRead, query: ListMembersQuery) {
  const where: ReadModelPrisma.MemberWhereInput = {
    ...(query.branch_id !== undefined ? { branch_id: query.branch_id } : {}),
    ...(query.status ? { status: STATUS_VALUES[query.status] } : {}),
    ...(query.search ? searchCondition(query.search) : {}),
  };
  return listPage(query, {
    rows: (window) =>
      read.member.findMany({
        where,
        orderBy: { id: 'asc' },
        select: memberResource.select,
        ...window,
      }),
    total: () => read.member.count({ where }),
    toApi: memberResource.toApi,
  });
}

export async function findMember(read: ScopedRead, id: number) {
  const row = await read.member.findUnique({ where: { id }, select: memberResource.select });
  return row ? memberResource.toApi(row) : null;
}

/** Whether the caller may see member `id`: its sub-resources are 404 otherwise. */
export async function memberVisible(read: ScopedRead, id: number): Promise<boolean> {
  return (await read.member.count({ where: { id } })) > 0;
}

export function listMemberPackages(
  read: ScopedRead,
  memberId: number,
  query: z.infer<typeof memberPackagesQuery>,
) {
  const where = { member_id: memberId, ...(query.status ? { status: query.status } : {}) };
  return listPage(query, {
    rows: (window) =>
      read.memberPackage.findMany({
        where,
        orderBy: { id: 'asc' },
        select: memberPackageResource.select,
        ...window,
      }),
    total: () => read.memberPackage.count({ where }),
    toApi: memberPackageResource.toApi,
  });
}

export function listMemberTransactions(
  read: ScopedRead,
  memberId: number,
  query: z.infer<typeof memberFinancialQuery>,
) {
  const where: ReadModelPrisma.FinancialTransactionWhereInput = {
    member_id: memberId,
    ...(query.transaction_type ? { transaction_type: query.transaction_type } : {}),
    ...(query.start_date || query.end_date
      ? { transaction_date: instantRange(query.start_date, query.end_date) }
      : {}),
  };
  return listPage(query, {
    rows: (window) =>
      read.financialTransaction.findMany({
        where,
        orderBy: [{ transaction_date: 'desc' }, { id: 'desc' }],
        select: transactionResource.select,
        ...window,
      }),
    total: () => read.financialTransaction.count({ where }),
    toApi: transactionResource.toApi,
  });
}
