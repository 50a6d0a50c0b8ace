import { itemResponse } from '#api/resource.js';
import { packageResource } from '#api/resources/packages.js';
import { equalities } from '#api/scoped-sql.js';
import { defineEndpoint } from '../../endpoint-services.js';
import { notFound } from '../../http/errors.js';
import { booleanFilter, idParams } from '../../http/filters.js';
import { listAnswer, listResponse, pageWindow, paginationQuery } from '../../http/pagination.js';

export const listPackagesEndpoint = defineEndpoint({
  operationId: 'listPackages',
  group: 'packages',
  method: 'GET',
  path: '/packages',
  summary: 'Paketleri listeler',
  description:
    'Packages belong to no branch: every client sees all of them. Sorted by id ascending.',
  access: 'packages:read',
  query: paginationQuery.extend({ is_active: booleanFilter }),
  response: listResponse(packageResource.schema, 'PackageListResponse'),
  tables: ['packages'],
  handle: async ({ read, query }) => {
    // A prepared statement through ScopedRead.sql: a shop lists the packages on every visit.
    const found = await read().sql.page({
      table: 'packages',
      where: equalities({ is_active: query.is_active }),
      resource: packageResource,
      orderBy: 'id',
      window: pageWindow(query),
    });
    return listAnswer(query, found);
  },
});

export const getPackageEndpoint = defineEndpoint({
  operationId: 'getPackage',
  group: 'packages',
  method: 'GET',
  path: '/packages/{id}',
  summary: 'Bir paketi getirir',
  access: 'packages:read',
  params: idParams,
  response: itemResponse(packageResource, 'PackageResponse'),
  tables: ['packages'],
  handle: async ({ read, params }) => {
    const row = await read().package.findUnique({
      where: { id: params.id },
      select: packageResource.select,
    });
    if (!row) throw notFound('Paket bulunamadı.');
    return { success: true, data: packageResource.toApi(row) };
  },
});
