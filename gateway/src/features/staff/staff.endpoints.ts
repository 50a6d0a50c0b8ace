import { z } from 'zod';
import type { ReadModelPrisma } from '../../../../common/databases.js';
import { defineEndpoint } from '../../http/endpoint.js';
import { notFound } from '../../http/errors.js';
import {
  booleanFilter,
  foldedSearch,
  idParams,
  optionalId,
  searchFilter,
} from '../../http/filters.js';
import { listPage, listResponse, paginationQuery } from '../../http/pagination.js';
import { defineResource, itemResponse } from '../../http/resource.js';

// password_hash and remember_token never reach the read model, let alone this shape.
export const staffResource = defineResource(
  'Staff',
  {
    id: z.int(),
    full_name: z.string(),
    username: z.string(),
    email: z.string(),
    phone: z.string(),
    branch_id: z.int(),
    branch_name: z.string(),
    role_name: z.string(),
    is_active: z.boolean(),
    created_at: z.iso.datetime(),
    last_login: z.iso.datetime().nullable(),
  },
  {
    id: 12,
    full_name: 'Zeynep Kaya',
    username: 'zkaya',
    email: 'zeynep.kaya@example.com',
    phone: '5339876543',
    branch_id: 3,
    branch_name: 'Kadıköy',
    role_name: 'Resepsiyon',
    is_active: true,
    created_at: '2024-02-01T06:00:00.000Z',
    last_login: '2026-03-14T05:55:00.000Z',
  },
);

export const listStaffEndpoint = defineEndpoint({
  operationId: 'listStaff',
  group: 'staff',
  method: 'GET',
  path: '/staff',
  summary: 'Personeli listeler',
  description: 'Sorted by id ascending. `search` matches name, username and e-mail.',
  access: 'staff:read',
  query: paginationQuery.extend({
    branch_id: optionalId,
    is_active: booleanFilter,
    search: searchFilter,
  }),
  response: listResponse(staffResource.schema, 'StaffListResponse'),
  tables: ['staff', 'branches', 'roles'],
  handle: ({ read, query }) => {
    const where: ReadModelPrisma.StaffWhereInput = {
      branch_id: query.branch_id,
      is_active: query.is_active,
      ...(query.search ? foldedSearch(query.search) : {}),
    };
    return listPage(query, {
      rows: (window) =>
        read().staff.findMany({
          where,
          orderBy: { id: 'asc' },
          select: staffResource.select,
          ...window,
        }),
      total: () => read().staff.count({ where }),
      toApi: staffResource.toApi,
    });
  },
});

export const getStaffEndpoint = defineEndpoint({
  operationId: 'getStaff',
  group: 'staff',
  method: 'GET',
  path: '/staff/{id}',
  summary: 'Bir personeli getirir',
  description: "Another branch's staff member answers 404 to a bound client.",
  access: 'staff:read',
  params: idParams,
  response: itemResponse(staffResource, 'StaffResponse'),
  tables: ['staff', 'branches', 'roles'],
  handle: async ({ read, params }) => {
    const row = await read().staff.findUnique({
      where: { id: params.id },
      select: staffResource.select,
    });
    if (!row) throw notFound('Personel bulunamadı.');
    return { success: true, data: staffResource.toApi(row) };
  },
});
