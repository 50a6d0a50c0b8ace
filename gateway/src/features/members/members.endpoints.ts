import { idParams } from '../../http/filters.js';
import { defineEndpoint } from '../../endpoint-services.js';
import { notFound } from '../../http/errors.js';
import { memberETag } from './member-version.js';
import { transactionListResponse } from '../financial/financial.schemas.js';
import {
  findMember,
  listMemberPackages,
  listMembers,
  listMemberTransactions,
  memberVisible,
} from './members.read.js';
import {
  listMembersQuery,
  memberFinancialQuery,
  memberListResponse,
  memberPackageListResponse,
  memberPackagesQuery,
  memberResponse,
} from './members.schemas.js';

const memberNotFound = () => notFound('Üye bulunamadı.');

export const listMembersEndpoint = defineEndpoint({
  operationId: 'listMembers',
  group: 'members',
  method: 'GET',
  path: '/members',
  summary: 'Üyeleri listeler',
  description:
    'Sorted by id ascending. `search` matches name and surname (Turkish-insensitive), and for a client holding the `contact` class e-mail and phone digits too: search never matches a field the client may not see.',
  access: 'members:list',
  query: listMembersQuery,
  response: memberListResponse,
  tables: ['members', 'branches'],
  handle: ({ read, query, auth }) => listMembers(read(), query, auth().dataClasses),
});

export const getMemberEndpoint = defineEndpoint({
  operationId: 'getMember',
  group: 'members',
  method: 'GET',
  path: '/members/{id}',
  summary: 'Bir üyeyi getirir',
  description:
    "Another branch's member answers 404 to a bound client. The answer's strong `ETag` is the member's version, for `If-Match` on PUT; a GET whose `If-None-Match` names it answers 304 without a body.",
  access: 'members:read',
  params: idParams,
  response: memberResponse,
  tables: ['members', 'branches'],
  handle: async ({ read, params, setHeader }) => {
    const member = await findMember(read(), params.id);
    if (!member) throw memberNotFound();
    setHeader('ETag', memberETag(member));
    return { success: true, data: member };
  },
});

export const getMemberPackagesEndpoint = defineEndpoint({
  operationId: 'getMemberPackages',
  group: 'members',
  method: 'GET',
  path: '/members/{id}/packages',
  summary: 'Bir üyenin paketlerini listeler',
  description: 'Sorted by id ascending.',
  access: 'members:read',
  params: idParams,
  query: memberPackagesQuery,
  response: memberPackageListResponse,
  tables: ['members', 'member_packages', 'packages'],
  handle: async ({ read, params, query }) => {
    if (!(await memberVisible(read(), params.id))) throw memberNotFound();
    return listMemberPackages(read(), params.id, query);
  },
});

export const getMemberFinancialEndpoint = defineEndpoint({
  operationId: 'getMemberFinancial',
  group: 'members',
  method: 'GET',
  path: '/members/{id}/financial',
  summary: 'Bir üyenin finansal hareketlerini listeler',
  description: 'Newest first (transaction_date, then id, descending).',
  access: 'members:read',
  params: idParams,
  query: memberFinancialQuery,
  response: transactionListResponse,
  tables: ['members', 'financial_transactions', 'staff'],
  handle: async ({ read, params, query }) => {
    if (!(await memberVisible(read(), params.id))) throw memberNotFound();
    return listMemberTransactions(read(), params.id, query);
  },
});
