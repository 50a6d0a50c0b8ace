-- Kept statistics (docs/decisions/0014-kept-counts.md): per branch and Istanbul day, what the
-- statistics sum, written by statement triggers in the transaction that changes the rows, as
-- delta rows like kept_counts (folded by worker/src/sync/sync-runner.ts):
--   money:<transaction_type>  non-cancelled, active transactions on their transaction_date's
--                             Istanbul day: how many (n) and their amount
--   registered                members on their registered_at's Istanbul day
--   active_package            member_packages with status Aktif on their end_date
-- A statistic of a day or a month is then a sum over at most a few dozen rows per branch.
CREATE TABLE "kept_day_sums" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "branch_key" INTEGER NOT NULL,
    "day" DATE NOT NULL,
    "n" BIGINT NOT NULL,
    "amount" DECIMAL(14,2) NOT NULL,

    CONSTRAINT "kept_day_sums_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "kept_day_sums_kind_branch_key_day_idx" ON "kept_day_sums"("kind", "branch_key", "day");
CREATE INDEX "kept_day_sums_kind_day_idx" ON "kept_day_sums"("kind", "day");

-- TG_ARGV: the kind, the day, the amount (SQL over the row) and the condition for a row to count.
CREATE FUNCTION kept_day_sums_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  parts text[] := '{}';
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    parts := parts || format(
      'SELECT %s AS k, branch_id AS b, %s AS day, 1 AS d, %s AS a FROM new_rows WHERE %s',
      TG_ARGV[0], TG_ARGV[1], TG_ARGV[2], TG_ARGV[3]);
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    parts := parts || format(
      'SELECT %s AS k, branch_id AS b, %s AS day, -1 AS d, -(%s) AS a FROM old_rows WHERE %s',
      TG_ARGV[0], TG_ARGV[1], TG_ARGV[2], TG_ARGV[3]);
  END IF;
  EXECUTE 'INSERT INTO kept_day_sums (kind, branch_key, day, n, amount) '
    'SELECT k, b, day, sum(d), sum(a) FROM (' || array_to_string(parts, ' UNION ALL ') || ') c '
    'GROUP BY k, b, day HAVING sum(d) <> 0 OR sum(a) <> 0';
  RETURN NULL;
END $$;

DO $$
DECLARE
  kept record;
BEGIN
  FOR kept IN
    SELECT * FROM (VALUES
      ('financial_transactions', '''money:'' || transaction_type',
       '((transaction_date AT TIME ZONE ''UTC'') + interval ''3 hours'')::date', 'amount',
       'NOT is_cancelled AND is_active'),
      ('members', '''registered''',
       '((registered_at AT TIME ZONE ''UTC'') + interval ''3 hours'')::date', '0', 'true'),
      ('member_packages', '''active_package''', 'end_date', '0', 'status = ''Aktif''')
    ) AS t(table_name, kind, day, amount, condition)
  LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows '
      'FOR EACH STATEMENT EXECUTE FUNCTION kept_day_sums_apply(%L, %L, %L, %L)',
      kept.table_name || '_day_sums_insert', kept.table_name,
      kept.kind, kept.day, kept.amount, kept.condition);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows '
      'NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kept_day_sums_apply(%L, %L, %L, %L)',
      kept.table_name || '_day_sums_update', kept.table_name,
      kept.kind, kept.day, kept.amount, kept.condition);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows '
      'FOR EACH STATEMENT EXECUTE FUNCTION kept_day_sums_apply(%L, %L, %L, %L)',
      kept.table_name || '_day_sums_delete', kept.table_name,
      kept.kind, kept.day, kept.amount, kept.condition);
    EXECUTE format('INSERT INTO kept_day_sums (kind, branch_key, day, n, amount) '
      'SELECT %s, branch_id, %s, count(*), sum(%s) FROM %I WHERE %s GROUP BY 1, 2, 3',
      kept.kind, kept.day, kept.amount, kept.table_name, kept.condition);
  END LOOP;
END $$;
