import { z } from 'zod';
import type { ReadModelPrisma } from '../../../../common/databases.js';
import { defineEndpoint } from '../../http/endpoint.js';
import { booleanFilter, foldedSearch, optionalId, searchFilter } from '../../http/filters.js';
import { listPage, listResponse, paginationQuery } from '../../http/pagination.js';
import { defineResource } from '../../http/resource.js';

export const marketProductResource = defineResource(
  'MarketProduct',
  {
    id: z.int(),
    name: z.string(),
    category_id: z.int(),
    category_name: z.string(),
    price: z.number(),
    stock: z.int(),
    is_active: z.boolean(),
  },
  {
    id: 14,
    name: 'Protein Bar',
    category_id: 2,
    category_name: 'Atıştırmalık',
    price: 85,
    stock: 40,
    is_active: true,
  },
);

export const marketCategoryResource = defineResource(
  'MarketCategory',
  {
    id: z.int(),
    name: z.string(),
    is_active: z.boolean(),
    created_at: z.iso.datetime(),
  },
  {
    id: 2,
    name: 'Atıştırmalık',
    is_active: true,
    created_at: '2024-01-15T08:00:00.000Z',
  },
);

export const listMarketProductsEndpoint = defineEndpoint({
  operationId: 'listMarketProducts',
  group: 'market',
  method: 'GET',
  path: '/market/products',
  summary: 'Market ürünlerini listeler',
  description: 'Market data belongs to no branch. Sorted by id ascending.',
  access: 'market:read',
  query: paginationQuery.extend({
    category_id: optionalId,
    is_active: booleanFilter,
    search: searchFilter,
  }),
  response: listResponse(marketProductResource.schema, 'MarketProductListResponse'),
  tables: ['market_products', 'market_categories'],
  handle: ({ read, query }) => {
    const where: ReadModelPrisma.MarketProductWhereInput = {
      category_id: query.category_id,
      is_active: query.is_active,
      ...(query.search ? foldedSearch(query.search) : {}),
    };
    return listPage(query, {
      rows: (window) =>
        read().marketProduct.findMany({
          where,
          orderBy: { id: 'asc' },
          select: marketProductResource.select,
          ...window,
        }),
      total: () => read().marketProduct.count({ where }),
      toApi: marketProductResource.toApi,
    });
  },
});

export const listMarketCategoriesEndpoint = defineEndpoint({
  operationId: 'listMarketCategories',
  group: 'market',
  method: 'GET',
  path: '/market/categories',
  summary: 'Market kategorilerini listeler',
  description: 'Sorted by id ascending.',
  access: 'market:read',
  query: paginationQuery.extend({ is_active: booleanFilter }),
  response: listResponse(marketCategoryResource.schema, 'MarketCategoryListResponse'),
  tables: ['market_categories'],
  handle: ({ read, query }) => {
    const where = { is_active: query.is_active };
    return listPage(query, {
      rows: (window) =>
        read().marketCategory.findMany({
          where,
          orderBy: { id: 'asc' },
          select: marketCategoryResource.select,
          ...window,
        }),
      total: () => read().marketCategory.count({ where }),
      toApi: marketCategoryResource.toApi,
    });
  },
});
