// The statements reading the kept counts and day sums (read-model/kept-counts.ts) for the SQL
// reads (api/scoped-sql.ts): totals, deep pages in id order placed by blocks of ids, day sums.
// Which branch keys a read sums comes from the branch rule (api/branch-rule.ts keptBranchKeys).
import pg from 'pg';
import {
  ID_BLOCK,
  daySumPrefix,
  type DaySumTable,
  type KeptTable,
} from '../read-model/kept-counts.js';

/** The kept counts matching a page's `where` exactly (read-model/kept-counts.ts). */
export interface KeptFilter {
  table: KeptTable;
  branchId?: number;
  status?: string;
}

/** Branch keys summed: undefined every key (an empty list is answered before any statement). */
type Keys = number[] | undefined;

/** `kept`'s rows in kept_counts or kept_totals, as conditions over `params` (pushed). */
function keptWhere(kept: KeptFilter, keys: Keys, params: unknown[]): string {
  const where = [`table_name = $${params.push(kept.table)}`];
  if (keys !== undefined) where.push(`branch_key = ANY($${params.push(keys)}::int[])`);
  if (kept.status !== undefined) where.push(`status = $${params.push(kept.status)}`);
  return where.join(' AND ');
}

/** The statement of `kept`'s total, over `params` (pushed onto it). */
export function keptTotal(kept: KeptFilter, keys: Keys, params: unknown[]): string {
  return `SELECT coalesce(sum(n), 0) AS n FROM kept_totals WHERE ${keptWhere(kept, keys, params)}`;
}

/**
 * A deep page in id order, from the kept counts per block of ids: the blocks before the page are
 * summed (a few rows each), and only the rest of the skip, within one block, is walked. The total
 * is the sum of every block, after the page's columns. `rowsFrom` is the page's FROM and WHERE
 * over `params`, given the SQL of the first id to read.
 */
export function positionedPage(
  page: { table: string; list: string; skip: number; take: number },
  kept: KeptFilter,
  keys: Keys,
  rowsFrom: (firstId: string) => { from: string; params: unknown[] },
): { text: string; params: unknown[] } {
  const { from, params } = rowsFrom(`(SELECT id_block * ${ID_BLOCK} FROM start)`);
  const blocks = keptWhere(kept, keys, params);
  const skip = `$${params.push(page.skip)}::bigint`;
  const take = `$${params.push(page.take)}`;
  const text = `WITH blocks AS (
       SELECT id_block, sum(n) AS n FROM kept_counts WHERE ${blocks}
       GROUP BY id_block HAVING sum(n) <> 0
     ), placed AS (
       SELECT id_block, (sum(n) OVER (ORDER BY id_block) - n)::bigint AS before FROM blocks
     ), start AS (
       SELECT id_block, before FROM placed WHERE before <= ${skip}
       ORDER BY id_block DESC LIMIT 1
     )
     SELECT ${page.list}, (SELECT coalesce(sum(n), 0) FROM blocks) AS total
     FROM ${pg.escapeIdentifier(page.table)} WHERE id IN (
       SELECT id ${from} ORDER BY id LIMIT ${take} OFFSET ${skip} - (SELECT before FROM start)
     ) ORDER BY id`;
  return { text, params };
}

/**
 * The statement of `table`'s kept day sums over the Istanbul days [from, to] (either end open),
 * per kind: rows and amount (exact decimal text).
 */
export function daySumsStatement(
  table: DaySumTable,
  keys: Keys,
  days: { from?: string; to?: string },
): { text: string; params: unknown[] } {
  const params: unknown[] = [`${daySumPrefix(table)}%`];
  const where = ['kind LIKE $1'];
  if (keys !== undefined) where.push(`branch_key = ANY($${params.push(keys)}::int[])`);
  if (days.from) where.push(`day >= $${params.push(days.from)}::date`);
  if (days.to) where.push(`day <= $${params.push(days.to)}::date`);
  const text = `SELECT kind, sum(n) AS n, sum(amount)::text AS amount FROM kept_day_sums
     WHERE ${where.join(' AND ')} GROUP BY kind`;
  return { text, params };
}
