-- Kept totals (docs/decisions/0014-kept-counts.md): beside its rows per block of 4,096 ids, every
-- statement also adds one row per branch and status under id_block -1, so a list's exact total
-- is a sum over a few rows whatever the table's size. Summed over the blocks it read 294 rows at
-- 200,000 members, about a third of PostgreSQL's time on a page of 50.

-- No statement may add block rows under the old function between the backfill and the new one.
LOCK TABLE "kept_counts" IN SHARE ROW EXCLUSIVE MODE;

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
    'INSERT INTO kept_counts (table_name, branch_key, status, id_block, n) '
    'SELECT %L, b, s, CASE WHEN grouping(k) = 1 THEN -1 ELSE k END, sum(d) FROM (%s) c '
    'GROUP BY GROUPING SETS ((b, s, k), (b, s)) HAVING sum(d) <> 0',
    TG_TABLE_NAME, array_to_string(parts, ' UNION ALL '));
  RETURN NULL;
END $$;

INSERT INTO "kept_counts" ("table_name", "branch_key", "status", "id_block", "n")
SELECT "table_name", "branch_key", "status", -1, sum("n") FROM "kept_counts"
WHERE "id_block" >= 0 GROUP BY 1, 2, 3 HAVING sum("n") <> 0;
