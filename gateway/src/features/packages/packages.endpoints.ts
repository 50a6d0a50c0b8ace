import { itemResponse } from '../../../../api/resource.js';
import { packageResource } from '../../../../api/resources/packages.js';
import { defineEndpoint } from '../../http/endpoint.js';
import { notFound } from '../../http/errors.js';
import { booleanFilter, idParams } from '../../http/filters.js';
import { listPage, listResponse, paginationQuery } from '../../http/pagination.js';

const PACKAGE_COLUMNS = Object.keys(packageResource.select);

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
    // Prepared statements through ScopedRead.sql: a shop lists the packages on every visit.
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.is_active !== undefined) where.push(`is_active = $${params.push(query.is_active)}`);
    const filter = { table: 'packages' as const, where, params };
    return listPage(query, {
      rows: (window) =>
        read().sql.rows({ ...filter, columns: PACKAGE_COLUMNS, orderBy: 'id', window }),
      total: () => read().sql.count(filter),
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
