// Kept counts (docs/decisions/0014-kept-counts.md): the row counts of the large synced tables per
// branch and status, kept by statement triggers (migration 20261125030000_kept_counts) as delta
// rows in the transaction that changes the rows. Read: api/scoped-sql.ts. Folded and checked
// here.
import pg from 'pg';
/** A pool or one of its connections. */
type Queryable = Pick<pg.Pool, 'query'>;

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

export const isKeptTable = (table: string): table is KeptTable => table in KEPT_COUNTS;

/**
 * Folds each group's deltas into one row, in one statement: a reader sees the deltas or their
 * sum, never both or neither; deltas of transactions still running are not visible to it and
 * stay. Safe to run from several workers at once (a row is deleted once).
 */
export async function foldKeptCounts(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ folded: string }>(`
    WITH gone AS (DELETE FROM kept_counts RETURNING table_name, branch_key, status, n),
    folded AS (
      INSERT INTO kept_counts (table_name, branch_key, status, n)
      SELECT table_name, branch_key, status, sum(n) FROM gone
      GROUP BY table_name, branch_key, status HAVING sum(n) <> 0
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM gone) - (SELECT count(*) FROM folded) AS folded`);
  return Number(rows[0]?.folded ?? 0);
}

export interface KeptCountDifference {
  branchKey: number;
  status: string;
  kept: number;
  counted: number;
}

/** The groups whose kept count differs from a count of the rows, in one snapshot. */
export async function keptCountDifferences(
  db: Queryable,
  table: KeptTable,
): Promise<KeptCountDifference[]> {
  const column = KEPT_COUNTS[table];
  const status = column === '' ? `''` : pg.escapeIdentifier(column);
  const { rows } = await db.query<{
    branch_key: number;
    status: string;
    kept: string | null;
    counted: string | null;
  }>(
    `SELECT branch_key, status, k.kept, c.counted
     FROM (SELECT branch_key, status, sum(n) AS kept FROM kept_counts WHERE table_name = $1
           GROUP BY branch_key, status HAVING sum(n) <> 0) k
     FULL JOIN (SELECT coalesce(branch_id, 0) AS branch_key, ${status} AS status, count(*) AS counted
                FROM ${pg.escapeIdentifier(table)} GROUP BY 1, 2) c USING (branch_key, status)
     WHERE k.kept IS DISTINCT FROM c.counted`,
    [table],
  );
  return rows.map((r) => ({
    branchKey: r.branch_key,
    status: r.status,
    kept: Number(r.kept ?? 0),
    counted: Number(r.counted ?? 0),
  }));
}
