import { z } from 'zod';
import { itemResponse } from '#api/resource.js';
import {
  MEMBER_PACKAGE_STATUSES,
  memberPackageResource,
  memberResource,
} from '#api/resources/members.js';
import { checkDateRange, dayFilter, optionalId, searchFilter } from '../../http/filters.js';
import { listResponse, paginationQuery } from '../../http/pagination.js';

export const memberSchema = memberResource.schema;
export type Member = z.infer<typeof memberSchema>;

export const listMembersQuery = paginationQuery.extend({
  search: searchFilter,
  branch_id: optionalId,
  status: z.enum(['active', 'passive']).optional(),
});
export type ListMembersQuery = z.infer<typeof listMembersQuery>;

export const memberPackagesQuery = paginationQuery.extend({
  status: z.enum(MEMBER_PACKAGE_STATUSES).optional(),
});

export const memberFinancialQuery = paginationQuery
  .extend({
    start_date: dayFilter,
    end_date: dayFilter,
    transaction_type: z.enum(['Gelir', 'Gider']).optional(),
  })
  .superRefine(checkDateRange);

export const memberListResponse = listResponse(memberSchema, 'MemberListResponse');
export const memberResponse = itemResponse(memberResource, 'MemberResponse');
export const memberPackageListResponse = listResponse(
  memberPackageResource.schema,
  'MemberPackageListResponse',
);
