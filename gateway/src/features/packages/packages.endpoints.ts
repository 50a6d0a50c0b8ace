import { itemResponse } from '../../../../api/resource.js';
import { packageResource } from '../../../../api/resources/packages.js';
import { defineEndpoint } from '../../http/endpoint.js';
import { notFound } from '../../http/errors.js';
import { booleanFilter, idParams } from '../../http/filters.js';
import { listPage, listResponse, paginationQuery } from '../../http/pagination.js';

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
  handle: ({ read, query }) => {
    const where = { is_active: query.is_active };
    return listPage(query, {
      rows: (window) =>
        read().package.findMany({
          where,
          orderBy: { id: 'asc' },
          select: packageResource.select,
          ...window,
        }),
      total: () => read().package.count({ where }),
      toApi: packageResource.toApi,
    });
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
