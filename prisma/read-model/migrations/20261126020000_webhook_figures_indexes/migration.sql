-- GET /webhooks/{id}, its /deliveries and `npm run webhooks` stay fast at millions of rows
-- (docs/decisions/0012-webhooks.md): each index gains the column its figures count by, so the
-- counts read the index alone, and /deliveries pages in the tries' index order. Each replaces
-- the index it extends; the new ones are built first, so no query is left without one.
-- CreateIndex
CREATE INDEX "webhook_attempts_subscription_id_attempted_at_outcome_idx" ON "webhook_attempts"("subscription_id", "attempted_at", "outcome");

-- CreateIndex
CREATE INDEX "webhook_events_subscription_id_created_at_status_idx" ON "webhook_events"("subscription_id", "created_at", "status");

-- DropIndex
DROP INDEX "webhook_attempts_subscription_id_attempted_at_idx";

-- DropIndex
DROP INDEX "webhook_events_subscription_id_created_at_idx";
