import { z } from 'zod';
import { searchFilter } from '../../http/filters.js';
import { listResponse, paginationQuery } from '../../http/pagination.js';
import { defineResource, itemResponse } from '../../http/resource.js';

export const BRANCH_STATUSES = ['Aktif', 'Pasif'] as const;

export const branchResource = defineResource(
  'Branch',
  {
    id: z.int(),
    name: z.string(),
    address: z.string().nullable(),
    status: z.string().meta({ description: 'Aktif or Pasif.' }),
    manager_name: z.string().nullable(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    founded_at: z.iso.date().nullable(),
  },
  {
    id: 3,
    name: 'Kadıköy',
    address: 'Moda Cd. 1, Kadıköy, İstanbul',
    status: 'Aktif',
    manager_name: 'Mehmet Demir',
    phone: '2163456789',
    email: 'kadikoy@example.com',
    founded_at: '2019-06-01',
  },
);

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
