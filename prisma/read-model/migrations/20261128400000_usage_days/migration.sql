-- Usage by UTC day (docs/decisions/0015-usage-reports.md): usage_hours summed by day, client,
-- operation and status, kept equal to it by statement triggers on usage_hours in the transaction
-- that changes it (the worker's merges, its retention purge, any release's), so a report of whole
-- days reads a 24th of the rows and gives the same answer. Its rows go when their hours go: it
-- keeps no day usage_hours no longer has, and grows with time no more than usage_hours does.
-- CreateTable
CREATE TABLE "usage_days" (
    "day" TIMESTAMPTZ(3) NOT NULL,
    "client_id" INTEGER NOT NULL,
    "operation" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "requests" BIGINT NOT NULL,
    "bytes_out" BIGINT NOT NULL,
    "ms_le_0" BIGINT NOT NULL DEFAULT 0,
    "ms_le_5" BIGINT NOT NULL DEFAULT 0,
    "ms_le_10" BIGINT NOT NULL DEFAULT 0,
    "ms_le_25" BIGINT NOT NULL DEFAULT 0,
    "ms_le_50" BIGINT NOT NULL DEFAULT 0,
    "ms_le_75" BIGINT NOT NULL DEFAULT 0,
    "ms_le_100" BIGINT NOT NULL DEFAULT 0,
    "ms_le_250" BIGINT NOT NULL DEFAULT 0,
    "ms_le_500" BIGINT NOT NULL DEFAULT 0,
    "ms_le_750" BIGINT NOT NULL DEFAULT 0,
    "ms_le_1000" BIGINT NOT NULL DEFAULT 0,
    "ms_le_2500" BIGINT NOT NULL DEFAULT 0,
    "ms_le_5000" BIGINT NOT NULL DEFAULT 0,
    "ms_le_7500" BIGINT NOT NULL DEFAULT 0,
    "ms_le_10000" BIGINT NOT NULL DEFAULT 0,
    "ms_over_10000" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "usage_days_pkey" PRIMARY KEY ("client_id","day","operation","status")
);

-- CreateIndex
CREATE INDEX "usage_days_day_idx" ON "usage_days"("day");

-- The change a statement made to usage_hours, summed by day and added to usage_days: its new rows
-- count up, its old rows down (an upsert's update fires with both). Keys in order, so two
-- transactions adding to the same days lock them in the same order. A delete then removes the
-- days left without an hour, so usage_days never holds a row usage_hours would not sum to.
CREATE FUNCTION usage_days_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  counters text[] := ARRAY['requests', 'bytes_out', 'ms_le_0', 'ms_le_5', 'ms_le_10', 'ms_le_25',
    'ms_le_50', 'ms_le_75', 'ms_le_100', 'ms_le_250', 'ms_le_500', 'ms_le_750', 'ms_le_1000',
    'ms_le_2500', 'ms_le_5000', 'ms_le_7500', 'ms_le_10000', 'ms_over_10000'];
  changed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT 1 AS sign, * FROM new_rows'
    WHEN 'UPDATE' THEN 'SELECT 1 AS sign, * FROM new_rows UNION ALL SELECT -1, * FROM old_rows'
    ELSE 'SELECT -1 AS sign, * FROM old_rows' END;
BEGIN
  EXECUTE format(
    'INSERT INTO usage_days (day, client_id, operation, status, %s) '
    'SELECT date_trunc(''day'', hour, ''UTC''), client_id, operation, status, %s '
    'FROM (%s) c GROUP BY 1, 2, 3, 4 ORDER BY 2, 1, 3, 4 '
    'ON CONFLICT (client_id, day, operation, status) DO UPDATE SET %s',
    array_to_string(counters, ', '),
    (SELECT string_agg(format('sum(sign * %I)', c), ', ') FROM unnest(counters) c),
    changed,
    (SELECT string_agg(format('%I = usage_days.%I + excluded.%I', c, c, c), ', ')
       FROM unnest(counters) c));
  IF TG_OP = 'DELETE' THEN
    DELETE FROM usage_days d
     USING (SELECT DISTINCT date_trunc('day', hour, 'UTC') AS day, client_id, operation, status
              FROM old_rows) k
     WHERE d.client_id = k.client_id AND d.day = k.day AND d.operation = k.operation
       AND d.status = k.status
       AND NOT EXISTS (
         SELECT 1 FROM usage_hours h
          WHERE h.client_id = d.client_id AND h.hour >= d.day AND h.hour < d.day + interval '1 day'
            AND h.operation = d.operation AND h.status = d.status);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION usage_days_clear() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM usage_days;
  RETURN NULL;
END $$;

CREATE TRIGGER usage_hours_days_insert AFTER INSERT ON usage_hours
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION usage_days_apply();
CREATE TRIGGER usage_hours_days_update AFTER UPDATE ON usage_hours
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION usage_days_apply();
CREATE TRIGGER usage_hours_days_delete AFTER DELETE ON usage_hours
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION usage_days_apply();
CREATE TRIGGER usage_hours_days_truncate AFTER TRUNCATE ON usage_hours
  FOR EACH STATEMENT EXECUTE FUNCTION usage_days_clear();

-- The days so far. The triggers above already hold usage_hours against writes (the worker's
-- merge waits, its batch safe in Redis; reads go on), so no hour is summed twice or missed.
INSERT INTO usage_days (day, client_id, operation, status, requests, bytes_out, ms_le_0, ms_le_5,
    ms_le_10, ms_le_25, ms_le_50, ms_le_75, ms_le_100, ms_le_250, ms_le_500, ms_le_750,
    ms_le_1000, ms_le_2500, ms_le_5000, ms_le_7500, ms_le_10000, ms_over_10000)
SELECT date_trunc('day', hour, 'UTC'), client_id, operation, status, sum(requests),
       sum(bytes_out), sum(ms_le_0), sum(ms_le_5), sum(ms_le_10), sum(ms_le_25), sum(ms_le_50),
       sum(ms_le_75), sum(ms_le_100), sum(ms_le_250), sum(ms_le_500), sum(ms_le_750),
       sum(ms_le_1000), sum(ms_le_2500), sum(ms_le_5000), sum(ms_le_7500), sum(ms_le_10000),
       sum(ms_over_10000)
  FROM usage_hours
 GROUP BY 1, 2, 3, 4;
