import { marketCategoryResource, marketProductResource } from '#api/resources/market.js';
import type { ReadModelPrisma } from '#common/databases.js';
import { defineEndpoint } from '../../endpoint-services.js';
import { booleanFilter, foldedSearch, optionalId, searchFilter } from '../../http/filters.js';
import { listPage, listResponse, paginationQuery } from '../../http/pagination.js';

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
