-- Kept totals (docs/decisions/0014-kept-counts.md): each statement that changes rows of a kept
-- table also adds one delta per branch and status to kept_totals, so a list's exact total is a
-- sum over a few rows whatever the table's size. Summed over the blocks of kept_counts it read
-- 294 rows at 200,000 members, about a third of PostgreSQL's time on a page of 50. The totals
-- have a table of their own: a gateway or worker of the previous version, still running while
-- this applies, sums every row of kept_counts, which keeps holding blocks only.
CREATE TABLE "kept_totals" (
    "id" BIGSERIAL NOT NULL,
    "table_name" TEXT NOT NULL,
    "branch_key" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "kept_totals_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "kept_totals_table_name_branch_key_status_idx" ON "kept_totals"("table_name", "branch_key", "status");

-- No statement may change a kept table's rows between the totals' backfill and the new trigger
-- function's commit: one that ran the old function would add blocks but no total. The lock waits
-- for the writers in flight (their blocks are committed before the backfill reads them) and
-- holds new ones until this commits; it is the lock CREATE TRIGGER takes.
LOCK TABLE "members", "member_packages", "financial_transactions", "installment_plans", "staff",
  "notifications", "private_lessons", "presence_records" IN SHARE ROW EXCLUSIVE MODE;

-- One pass over the transition tables feeds both: the per-block groups go to kept_counts, the
-- per-branch-and-status groups (grouping(k) = 1) to kept_totals.
CREATE OR REPLACE FUNCTION kept_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  branch_expr text := format('coalesce(%I, 0)', TG_ARGV[0]);
  status_expr text := CASE WHEN TG_ARGV[1] = '' THEN '''''' ELSE format('%I', TG_ARGV[1]) END;
  parts text[] := '{}';
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    parts := parts || format('SELECT %s AS b, %s AS s, id / 4096 AS k, 1 AS d FROM new_rows', branch_expr, status_expr);
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    parts := parts || format('SELECT %s AS b, %s AS s, id / 4096 AS k, -1 AS d FROM old_rows', branch_expr, status_expr);
  END IF;
  EXECUTE format(
    'WITH g AS ('
    '  SELECT b, s, k, grouping(k) AS total, sum(d) AS n FROM (%s) c'
    '  GROUP BY GROUPING SETS ((b, s, k), (b, s)) HAVING sum(d) <> 0'
    '), totals AS ('
    '  INSERT INTO kept_totals (table_name, branch_key, status, n)'
    '  SELECT %L, b, s, n FROM g WHERE total = 1'
    ') '
    'INSERT INTO kept_counts (table_name, branch_key, status, id_block, n) '
    'SELECT %L, b, s, k, n FROM g WHERE total = 0',
    array_to_string(parts, ' UNION ALL '), TG_TABLE_NAME, TG_TABLE_NAME);
  RETURN NULL;
END $$;

INSERT INTO "kept_totals" ("table_name", "branch_key", "status", "n")
SELECT "table_name", "branch_key", "status", sum("n") FROM "kept_counts"
GROUP BY 1, 2, 3 HAVING sum("n") <> 0;
