-- An event's rights are checked again when it is sent (docs/decisions/0012-webhooks.md): its row's
-- branch (the change's branch_id) against the client's binding as it is then.
ALTER TABLE "webhook_events" ADD COLUMN     "row_branch_id" INTEGER;

-- Events recorded before: the branch_id of the change their body carries.
UPDATE "webhook_events" SET "row_branch_id" = ("body"::jsonb -> 'data' ->> 'branch_id')::integer;
