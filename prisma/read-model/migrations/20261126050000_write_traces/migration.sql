-- Traces of member writes followed into the worker (docs/decisions/0017-traces.md): the
-- gateway's request stores its traceparent with the write's audit record, and the record the
-- transaction that wrote it, which is the one that put the row in the read model (the row's
-- change_xid); a webhook event keeps the traceparent of the write whose change it carries.
ALTER TABLE "member_write_audit" ADD COLUMN "trace_parent" TEXT,
ADD COLUMN "change_xid" BIGINT;

-- Set apart from the column: a volatile default on ADD COLUMN would rewrite the table, every
-- existing record included, under its lock. Records from before keep NULL.
ALTER TABLE "member_write_audit" ALTER COLUMN "change_xid" SET DEFAULT ((pg_current_xact_id())::text)::bigint;

ALTER TABLE "webhook_events" ADD COLUMN "trace_parent" TEXT;
