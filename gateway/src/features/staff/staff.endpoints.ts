import { holds } from '#api/data-classes.js';
import { itemResponse } from '#api/resource.js';
import { staffResource } from '#api/resources/staff.js';
import type { ReadModelPrisma } from '#common/databases.js';
import { defineEndpoint } from '../../endpoint-services.js';
import { notFound } from '../../http/errors.js';
import {
  booleanFilter,
  foldedSearch,
  idParams,
  optionalId,
  searchFilter,
} from '../../http/filters.js';
import { listPage, listResponse, paginationQuery } from '../../http/pagination.js';

/** A condition no row meets. */
const NONE: ReadModelPrisma.StaffWhereInput = { id: { in: [] } };

export const listStaffEndpoint = defineEndpoint({
  operationId: 'listStaff',
  group: 'staff',
  method: 'GET',
  path: '/staff',
  summary: 'Personeli listeler',
  description:
    'Sorted by id ascending. `search` matches name, username and e-mail, for a client holding the `staff` class; for any other it matches nothing (those fields are withheld from it).',
  access: 'staff:read',
  query: paginationQuery.extend({
    branch_id: optionalId,
    is_active: booleanFilter,
    search: searchFilter,
  }),
  response: listResponse(staffResource.schema, 'StaffListResponse'),
  tables: ['staff', 'branches', 'roles'],
  handle: ({ read, query, auth }) => {
    // Every field a staff search reads is of the `staff` class.
    const mayMatch = holds(auth().dataClasses, 'staff');
    const search = query.search === undefined ? {} : mayMatch ? foldedSearch(query.search) : NONE;
    const where: ReadModelPrisma.StaffWhereInput = {
      branch_id: query.branch_id,
      is_active: query.is_active,
      ...search,
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
