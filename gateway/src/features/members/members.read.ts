// Member reads, from the read model as the caller may see it.
import { memberPackageResource, memberResource } from '#api/resources/members.js';
import { holds, type ClassMask } from '#api/data-classes.js';
import { equalities } from '#api/scoped-sql.js';
import { sql } from '#read-model/sql.js';
import { foldTurkish, phoneSearchDigits } from '#common/turkish.js';
import { escapeLike } from '../../http/filters.js';
import { listAnswer, listPage, narrowsOnlyBy, pageWindow } from '../../http/pagination.js';
import type { ScopedRead } from '../../http/scoped-read.js';
import { listTransactions } from '../financial/financial.read.js';
import type { z } from 'zod';
import type {
  ListMembersQuery,
  memberFinancialQuery,
  memberPackagesQuery,
} from './members.schemas.js';

const STATUS_VALUES = { active: 'Aktif', passive: 'Pasif' } as const;

/**
 * The two hottest reads run as prepared statements (ScopedRead.sql), without the ORM's per-query
 * cost (docs/decisions/0005-fast-hot-path.md). The search conditions are those foldedSearch and
 * phoneDigitsSearch express for Prisma.
 */
export async function listMembers(read: ScopedRead, query: ListMembersQuery, classes: ClassMask) {
  const where = equalities({
    branch_id: query.branch_id,
    status: query.status ? STATUS_VALUES[query.status] : undefined,
  });
  // Without a search, the exact total is kept (read-model/kept-counts.ts), not counted.
  const kept = narrowsOnlyBy(query, ['branch_id', 'status']);
  if (query.search) where.push(memberSearch(query.search, classes));
  const keptFilter = {
    table: 'members' as const,
    ...(query.branch_id !== undefined ? { branchId: query.branch_id } : {}),
    ...(query.status ? { status: STATUS_VALUES[query.status] } : {}),
  };
  const found = await read.sql.page({
    table: 'members',
    where,
    resource: memberResource,
    orderBy: 'id',
    window: pageWindow(query),
    ...(kept ? { kept: keptFilter } : {}),
  });
  return listAnswer(query, found);
}

/**
 * A member search as the caller may make it: name, surname, and with `contact` the e-mail and the
 * phone's digits. Without `contact` it never matches on those, or a search would tell whether a
 * phone number or an address is a member's. search_text is the folded name, surname and e-mail,
 * in that order (read-model/tables/members.table.ts); the e-mail's part is cut off its end (an
 * address folds to its own length: it is ASCII, lower-cased).
 */
function memberSearch(search: string, classes: ClassMask) {
  const pattern = `%${escapeLike(foldTurkish(search))}%`;
  if (!holds(classes, 'contact')) {
    return sql`(CASE WHEN NULLIF(email, '') IS NULL THEN search_text
      ELSE left(search_text, length(search_text) - length(btrim(email)) - 1) END) LIKE ${pattern}`;
  }
  const text = sql`search_text LIKE ${pattern}`;
  const digits = phoneSearchDigits(search);
  return digits ? sql`${text} OR phone_digits LIKE ${`%${digits}%`}` : text;
}

export async function findMember(read: ScopedRead, id: number) {
  const [member] = await read.sql.rows({
    table: 'members',
    where: [sql`id = ${id}`],
    resource: memberResource,
  });
  return member ?? null;
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
  // A member's history is the transaction list narrowed to that member.
  return listTransactions(read, { ...query, member_id: memberId });
}
