// Kept counts and day sums (docs/decisions/0014-kept-counts.md): the row counts of the large
// synced tables per branch and status, and what the statistics sum per branch and Istanbul day,
// kept by statement triggers (migrations 20261125030000_kept_counts, 20261125040000_kept_day_sums,
// 20261125050000_kept_totals) as delta rows in the transaction that changes the rows. Read:
// api/scoped-sql.ts. Folded and checked here; the definitions below are the migrations' own, for
// the check.
import { ident, join, pgRows, raw, sql, type PgQueryable as Queryable } from './sql.js';

/** The tables with kept counts, and the status column each is counted by ('' for none). */
export const KEPT_COUNTS = {
  members: 'status',
  member_packages: 'status',
  financial_transactions: '',
  installment_plans: 'status',
  staff: '',
  notifications: '',
  private_lessons: '',
  presence_records: '',
} as const;
export type KeptTable = keyof typeof KEPT_COUNTS;

/**
 * kept_counts counts rows per block of this many ids (the migration's `id / 4096`), for deep
 * pages; kept_totals counts them over all ids, for totals.
 */
export const ID_BLOCK = 4096;

export const isKeptTable = (table: string): table is KeptTable => table in KEPT_COUNTS;

/**
 * The day sums each table feeds: kind, Istanbul day and amount (SQL over a row), and which rows;
 * every kind of a table starts with its `prefix`.
 */
const KEPT_DAY_SUMS = {
  financial_transactions: {
    prefix: 'money:',
    kind: `'money:' || transaction_type`,
    day: `((transaction_date AT TIME ZONE 'UTC') + interval '3 hours')::date`,
    amount: 'amount',
    condition: 'NOT is_cancelled AND is_active',
  },
  members: {
    prefix: 'registered',
    kind: `'registered'`,
    day: `((registered_at AT TIME ZONE 'UTC') + interval '3 hours')::date`,
    amount: '0',
    condition: 'true',
  },
  member_packages: {
    prefix: 'active_package',
    kind: `'active_package'`,
    day: 'end_date',
    amount: '0',
    condition: `status = 'Aktif'`,
  },
} as const satisfies Partial<
  Record<
    KeptTable,
    { prefix: string; kind: string; day: string; amount: string; condition: string }
  >
>;
export type DaySumTable = keyof typeof KEPT_DAY_SUMS;

/** The prefix every day-sum kind of `table` starts with. */
export const daySumPrefix = (table: DaySumTable): string => KEPT_DAY_SUMS[table].prefix;

/**
 * Folds each group's deltas into one row, in one statement: a reader sees the deltas or their
 * sum, never both or neither; deltas of transactions still running are not visible to it and
 * stay. Safe to run from several workers at once (a row is deleted once).
 */
export async function foldKeptCounts(db: Queryable): Promise<number> {
  return (
    (await foldTable(
      db,
      'kept_counts',
      ['table_name', 'branch_key', 'status', 'id_block'],
      ['n'],
    )) +
    (await foldTable(db, 'kept_totals', ['table_name', 'branch_key', 'status'], ['n'])) +
    (await foldTable(db, 'kept_day_sums', ['kind', 'branch_key', 'day'], ['n', 'amount']))
  );
}

/**
 * One table's fold: the rows of each group that has deltas (more than one row) replaced by their
 * sum, and a group summing to nothing removed; returns the rows it removed. A group already folded is left as it is, so a fold writes
 * in proportion to the deltas since the last one, not to the table: rewriting every row on each
 * fold made about 1,800 dead rows a second for 25 changes a second in a soak run.
 */
async function foldTable(db: Queryable, table: string, group: string[], sums: string[]) {
  const keys = join(group.map(ident));
  const columns = join([...group, ...sums].map(ident));
  const [row] = await pgRows<{ folded: string }>(
    db,
    sql`WITH deltas AS (SELECT ${keys} FROM ${ident(table)} GROUP BY ${keys}
      HAVING count(*) > 1 OR NOT (${join(
        sums.map((c) => sql`sum(${ident(c)}) <> 0`),
        ' OR ',
      )})),
    gone AS (DELETE FROM ${ident(table)} t USING deltas d
      WHERE ${join(
        group.map((c) => sql`t.${ident(c)} = d.${ident(c)}`),
        ' AND ',
      )}
      RETURNING ${join([...group, ...sums].map((c) => sql`t.${ident(c)}`))}),
    folded AS (
      INSERT INTO ${ident(table)} (${columns})
      SELECT ${keys}, ${join(sums.map((c) => sql`sum(${ident(c)})`))} FROM gone
      GROUP BY ${keys} HAVING ${join(
        sums.map((c) => sql`sum(${ident(c)}) <> 0`),
        ' OR ',
      )}
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM gone) - (SELECT count(*) FROM folded) AS folded`,
  );
  return Number(row?.folded ?? 0);
}

export interface KeptDifference {
  /** The group: "count of branch 3, status 'Aktif'", "registered of branch 3 on 2026-11-25 (n)". */
  group: string;
  kept: string;
  actual: string;
}

/** Every kept count and day sum of `table` that differs from the rows, each in one snapshot. */
export async function keptDifferences(db: Queryable, table: KeptTable): Promise<KeptDifference[]> {
  const counts = (await keptCountDifferences(db, table)).map((d) => ({
    group: `count of branch ${d.branchKey}, status '${d.status}', ${
      d.idBlock === null
        ? 'all ids'
        : `ids ${d.idBlock * ID_BLOCK}–${(d.idBlock + 1) * ID_BLOCK - 1}`
    }`,
    kept: String(d.kept),
    actual: String(d.counted),
  }));
  return [...counts, ...(await keptDaySumDifferences(db, table))];
}

async function keptDaySumDifferences(db: Queryable, table: KeptTable): Promise<KeptDifference[]> {
  if (!(table in KEPT_DAY_SUMS)) return [];
  const sums = KEPT_DAY_SUMS[table as DaySumTable];
  const rows = await pgRows<{
    kind: string;
    branch_key: number;
    day: string;
    kept_n: string | null;
    kept_amount: string | null;
    n: string | null;
    amount: string | null;
  }>(
    db,
    sql`SELECT kind, branch_key, day::text AS day, k.kept_n, k.kept_amount, c.n, c.amount
     FROM (SELECT kind, branch_key, day, sum(n) AS kept_n, sum(amount) AS kept_amount
           FROM kept_day_sums WHERE kind LIKE ${sums.kind.startsWith(`'money:'`) ? 'money:%' : sums.kind.slice(1, -1)}
           GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(amount) <> 0) k
     FULL JOIN (SELECT ${raw(sums.kind)} AS kind, branch_id AS branch_key, ${raw(sums.day)} AS day,
                       count(*) AS n, sum(${raw(sums.amount)}) AS amount
                FROM ${ident(table)} WHERE ${raw(sums.condition)} GROUP BY 1, 2, 3) c
       USING (kind, branch_key, day)
     WHERE k.kept_n IS DISTINCT FROM c.n OR k.kept_amount IS DISTINCT FROM c.amount`,
  );
  return rows.map((r) => ({
    group: `${r.kind} of branch ${r.branch_key} on ${r.day}`,
    kept: `${r.kept_n ?? 0} rows, ${r.kept_amount ?? 0}`,
    actual: `${r.n ?? 0} rows, ${r.amount ?? 0}`,
  }));
}

interface KeptCountDifference {
  branchKey: number;
  status: string;
  /** null: the group's total over all ids (kept_totals). */
  idBlock: number | null;
  kept: number;
  counted: number;
}

/**
 * The groups whose kept count differs from a count of the rows, in one snapshot: per block of ids
 * (kept_counts) and over all ids (kept_totals, as id_block null).
 */
async function keptCountDifferences(
  db: Queryable,
  table: KeptTable,
): Promise<KeptCountDifference[]> {
  const column = KEPT_COUNTS[table];
  const status = column === '' ? raw(`''`) : ident(column);
  const rows = await pgRows<{
    branch_key: number;
    status: string;
    id_block: number | null;
    kept: string | null;
    counted: string | null;
  }>(
    db,
    sql`SELECT coalesce(k.branch_key, c.branch_key) AS branch_key,
            coalesce(k.status, c.status) AS status,
            coalesce(k.id_block, c.id_block) AS id_block, k.kept, c.counted
     FROM (SELECT branch_key, status, id_block, sum(n) AS kept FROM kept_counts
           WHERE table_name = ${table} GROUP BY 1, 2, 3 HAVING sum(n) <> 0
           UNION ALL
           SELECT branch_key, status, NULL, sum(n) FROM kept_totals
           WHERE table_name = ${table} GROUP BY 1, 2 HAVING sum(n) <> 0) k
     FULL JOIN (SELECT branch_key, status, id_block, count(*) AS counted
                FROM (SELECT coalesce(branch_id, 0) AS branch_key, ${status} AS status,
                             id / ${raw(String(ID_BLOCK))} AS id_block
                      FROM ${ident(table)}) r
                GROUP BY GROUPING SETS ((branch_key, status, id_block), (branch_key, status))) c
       ON k.branch_key = c.branch_key AND k.status = c.status
          AND k.id_block IS NOT DISTINCT FROM c.id_block
     WHERE k.kept IS DISTINCT FROM c.counted`,
  );
  return rows.map((r) => ({
    branchKey: r.branch_key,
    status: r.status,
    idBlock: r.id_block,
    kept: Number(r.kept ?? 0),
    counted: Number(r.counted ?? 0),
  }));
}
