-- Kept counts (docs/decisions/0014-kept-counts.md): how many rows each large table holds per
-- branch, status and block of 4,096 ids, written by statement triggers in the transaction that
-- changes the rows, so a list's exact total is a sum over a few rows instead of a count over the
-- table, and a deep page in id order starts in its block instead of walking every row before it. Rows are
-- deltas, only ever inserted (no transaction waits on another's counter row); the worker folds
-- them together (worker/src/sync/kept-counts.ts).
CREATE TABLE "kept_counts" (
    "id" BIGSERIAL NOT NULL,
    "table_name" TEXT NOT NULL,
    "branch_key" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "id_block" INTEGER NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "kept_counts_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "kept_counts_table_name_branch_key_status_id_block_idx" ON "kept_counts"("table_name", "branch_key", "status", "id_block");

-- TG_ARGV: the branch column, the status column ('' for none). A row without a branch counts
-- under branch 0, a table without a status under ''; a row counts in block id / 4096. Rows an
-- UPDATE left in their group cancel.
CREATE FUNCTION kept_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
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
    'SELECT %L, b, s, k, sum(d) FROM (%s) c GROUP BY b, s, k HAVING sum(d) <> 0',
    TG_TABLE_NAME, array_to_string(parts, ' UNION ALL '));
  RETURN NULL;
END $$;

DO $$
DECLARE
  kept record;
BEGIN
  FOR kept IN
    SELECT * FROM (VALUES
      ('members', 'status'),
      ('member_packages', 'status'),
      ('financial_transactions', ''),
      ('installment_plans', 'status'),
      ('staff', ''),
      ('notifications', ''),
      ('private_lessons', ''),
      ('presence_records', '')
    ) AS t(table_name, status_column)
  LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows '
      'FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_apply(%L, %L)',
      kept.table_name || '_kept_insert', kept.table_name, 'branch_id', kept.status_column);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows '
      'NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_apply(%L, %L)',
      kept.table_name || '_kept_update', kept.table_name, 'branch_id', kept.status_column);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows '
      'FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_apply(%L, %L)',
      kept.table_name || '_kept_delete', kept.table_name, 'branch_id', kept.status_column);
    EXECUTE format('INSERT INTO kept_counts (table_name, branch_key, status, id_block, n) '
      'SELECT %L, coalesce(branch_id, 0), %s, id / 4096, count(*) FROM %I GROUP BY 2, 3, 4',
      kept.table_name,
      CASE WHEN kept.status_column = '' THEN '''''' ELSE quote_ident(kept.status_column) END,
      kept.table_name);
  END LOOP;
END $$;
