import { foldTurkish } from '#common/turkish.js';
import { bool, decimal, instant, int, text, timestamps } from '../legacy-values.js';
import type { SyncTable } from '../table-definition.js';

export const marketCategoriesTable: SyncTable = {
  name: 'market_categories',
  from: { table: 'market_categories', alias: 'c' },
  select: `c.id, c.name, c.is_active, CAST(c.created_at AS CHAR) AS created_at`,
  // No updated_at: the category screen edits rows in place.
  changedAt: null,
  key: 'c.id',
  columns: { id: 'int', name: 'text', is_active: 'bool', created_at: 'instant' },
  map: (row) => ({
    id: int(row.id),
    name: text(row.name),
    is_active: bool(row.is_active),
    created_at: instant(row.created_at, 'created_at'),
  }),
  dependents: [
    {
      table: 'market_products',
      on: 'd.category_id = s.id',
      columns: { category_name: 's.name' },
      reads: ['name'],
    },
  ],
};

export const marketProductsTable: SyncTable = {
  name: 'market_products',
  from: { table: 'market_products', alias: 'p' },
  select: `p.id, p.name, p.category_id, COALESCE(c.name, '') AS category_name, p.price, p.stock,
    p.is_active, CAST(p.created_at AS CHAR) AS created_at, CAST(p.updated_at AS CHAR) AS updated_at`,
  joins: 'LEFT JOIN market_categories c ON c.id = p.category_id',
  changedAt: 'p.updated_at',
  key: 'p.id',
  columns: {
    id: 'int',
    name: 'text',
    category_id: 'int',
    category_name: 'text',
    price: 'decimal',
    stock: 'int',
    is_active: 'bool',
    created_at: 'instant',
    updated_at: 'instant',
    search_text: 'text',
  },
  computedColumns: ['search_text'],
  map: (row) => ({
    id: int(row.id),
    name: text(row.name),
    category_id: int(row.category_id),
    category_name: text(row.category_name),
    price: decimal(row.price),
    stock: int(row.stock),
    is_active: bool(row.is_active),
    ...timestamps(row),
    search_text: foldTurkish(text(row.name)),
  }),
};
