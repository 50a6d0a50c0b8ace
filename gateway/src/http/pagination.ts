// The one pagination helper: every list takes page/limit (1-based, limit <= 200, never clamped)
// and answers the specification's Pagination object.
import { z } from 'zod';

export const MAX_LIMIT = 200;

export const paginationQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(50),
});
export type PageRequest = z.infer<typeof paginationQuery>;

export const paginationSchema = z
  .strictObject({
    page: z.int(),
    limit: z.int(),
    total: z.int(),
    total_pages: z.int(),
  })
  .meta({ id: 'Pagination' });
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
