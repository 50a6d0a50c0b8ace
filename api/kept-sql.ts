// The statements reading the kept counts and day sums (read-model/kept-counts.ts) for the SQL
// reads (api/scoped-sql.ts): totals, deep pages in id order placed by blocks of ids, day sums.
// Which branch keys a read sums comes from the branch rule (api/branch-rule.ts keptBranchKeys).
import {
  ID_BLOCK,
  daySumPrefix,
  type DaySumTable,
  type KeptTable,
} from '#read-model/kept-counts.js';
import { ident, join, raw, sql, type Sql } from '#read-model/sql.js';

/** The kept counts matching a page's `where` exactly (read-model/kept-counts.ts). */
export interface KeptFilter {
  table: KeptTable;
  branchId?: number;
  status?: string;
}

/** Branch keys summed: undefined every key (an empty list is answered before any statement). */
type Keys = number[] | undefined;

/** `kept`'s rows in kept_counts or kept_totals, as conditions. */
function keptWhere(kept: KeptFilter, keys: Keys): Sql {
  const where = [sql`table_name = ${kept.table}`];
  if (keys !== undefined) where.push(sql`branch_key = ANY(${keys}::int[])`);
  if (kept.status !== undefined) where.push(sql`status = ${kept.status}`);
  return join(where, ' AND ');
}

/** The statement of `kept`'s total. */
export function keptTotal(kept: KeptFilter, keys: Keys): Sql {
  return sql`SELECT coalesce(sum(n), 0) AS n FROM kept_totals WHERE ${keptWhere(kept, keys)}`;
}

/** The first id a positioned page reads: where its block starts. */
export const BLOCK_START = raw(`(SELECT id_block * ${ID_BLOCK} FROM start)`);

/**
 * A deep page in id order, from the kept counts per block of ids: the blocks before the page are
 * summed (a few rows each), and only the rest of the skip, within one block, is walked. The total
 * is the sum of every block, after the page's columns. `from` is the page's FROM and WHERE, which
 * reads ids from BLOCK_START on.
 */
export function positionedPage(
  page: { table: string; list: Sql; skip: number; take: number },
  kept: KeptFilter,
  keys: Keys,
  from: Sql,
): Sql {
  const skip = sql`${page.skip}::bigint`;
  return sql`WITH blocks AS (
       SELECT id_block, sum(n) AS n FROM kept_counts WHERE ${keptWhere(kept, keys)}
       GROUP BY id_block HAVING sum(n) <> 0
     ), placed AS (
       SELECT id_block, (sum(n) OVER (ORDER BY id_block) - n)::bigint AS before FROM blocks
     ), start AS (
       SELECT id_block, before FROM placed WHERE before <= ${skip}
       ORDER BY id_block DESC LIMIT 1
     )
     SELECT ${page.list}, (SELECT coalesce(sum(n), 0) FROM blocks) AS total
     FROM ${ident(page.table)} WHERE id IN (
       SELECT id ${from} ORDER BY id LIMIT ${page.take} OFFSET ${skip} - (SELECT before FROM start)
     ) ORDER BY id`;
}

/**
 * The statement of `table`'s kept day sums over the Istanbul days [from, to] (either end open),
 * per kind: rows and amount (exact decimal text).
 */
export function daySumsStatement(
  table: DaySumTable,
  keys: Keys,
  days: { from?: string; to?: string },
): Sql {
  const where = [sql`kind LIKE ${`${daySumPrefix(table)}%`}`];
  if (keys !== undefined) where.push(sql`branch_key = ANY(${keys}::int[])`);
  if (days.from) where.push(sql`day >= ${days.from}::date`);
  if (days.to) where.push(sql`day <= ${days.to}::date`);
  return sql`SELECT kind, sum(n) AS n, sum(amount)::text AS amount FROM kept_day_sums
     WHERE ${join(where, ' AND ')} GROUP BY kind`;
}
