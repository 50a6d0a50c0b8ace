import { z } from 'zod';
import { itemResponse } from '#api/resource.js';
import { branchResource } from '#api/resources/branches.js';
import { searchFilter } from '../../http/filters.js';
import { listResponse, paginationQuery } from '../../http/pagination.js';

export const BRANCH_STATUSES = ['Aktif', 'Pasif'] as const;

export const branchStatsSchema = z
  .strictObject({
    total_members: z.int(),
    active_members: z.int(),
    active_packages: z.int(),
    monthly_revenue: z.number(),
  })
  .meta({
    id: 'BranchStats',
    examples: [
      { total_members: 412, active_members: 298, active_packages: 305, monthly_revenue: 186500 },
    ],
  });

export const branchesQuery = paginationQuery.extend({
  status: z.enum(BRANCH_STATUSES).optional(),
  search: searchFilter,
});

export const branchListResponse = listResponse(branchResource.schema, 'BranchListResponse');
export const branchResponse = itemResponse(branchResource, 'BranchResponse');
export const branchStatsResponse = z
  .object({ success: z.boolean(), data: branchStatsSchema })
  .meta({ id: 'BranchStatsResponse' });
