// The one pagination helper: every list takes page/limit (1-based, limit <= 200, never clamped)
// and answers the specification's Pagination object.
import { z } from 'zod';
import { decimalInteger } from './filters.js';

export const MAX_LIMIT = 200;

export const paginationQuery = z.object({
  page: decimalInteger({ min: 1, max: 1_000_000 }).default(1),
  limit: decimalInteger({ min: 1, max: MAX_LIMIT }).default(50),
});
export type PageRequest = z.infer<typeof paginationQuery>;

export const paginationSchema = z
  .strictObject({
    page: z.int(),
    limit: z.int(),
    total: z.int(),
    total_pages: z.int(),
  })
  .meta({ id: 'Pagination', examples: [{ page: 1, limit: 50, total: 132, total_pages: 3 }] });
export type Pagination = z.infer<typeof paginationSchema>;

export function pageWindow(page: PageRequest): { skip: number; take: number } {
  return { skip: (page.page - 1) * page.limit, take: page.limit };
}

export function paginationOf(page: PageRequest, total: number): Pagination {
  return {
    page: page.page,
    limit: page.limit,
    total,
    total_pages: Math.ceil(total / page.limit),
  };
}

/**
 * Whether a list's query narrows by nothing but `keys`, pagination aside: then a kept count
 * (read-model/kept-counts.ts) answers its total, and any filter added later falls back to counting.
 */
export function narrowsOnlyBy(query: object, keys: readonly string[]): boolean {
  return Object.entries(query).every(
    ([key, value]) =>
      value === undefined || key === 'page' || key === 'limit' || keys.includes(key),
  );
}

/** `{success, data: [...], pagination}`, the answer of every list endpoint. */
export function listResponse(item: z.ZodType, id: string) {
  return z
    .strictObject({ success: z.boolean(), data: z.array(item), pagination: paginationSchema })
    .meta({ id });
}

/** The answer of a list: a page's items and the total of the rows matching. */
export function listAnswer<Item>(page: PageRequest, found: { rows: Item[]; total: number }) {
  return { success: true, data: found.rows, pagination: paginationOf(page, found.total) };
}

/**
 * One page of a list read through the ORM: the rows of the window and the total, fetched side by
 * side. The hot lists read both in one statement (ScopedSql.page) and answer with listAnswer.
 */
export async function listPage<Row, Item>(
  page: PageRequest,
  query: {
    rows: (window: { skip: number; take: number }) => Promise<Row[]>;
    total: () => Promise<number>;
    toApi: (row: Row) => Item;
  },
) {
  const [rows, total] = await Promise.all([query.rows(pageWindow(page)), query.total()]);
  return listAnswer(page, { rows: rows.map(query.toApi), total });
}
