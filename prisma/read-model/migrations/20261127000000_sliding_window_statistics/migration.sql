-- The webhook tables hold a sliding window: events and tries arrive, are delivered and are
-- purged past their retention (docs/decisions/0018-a-year-unattended.md). Their rows turn over,
-- their statistics do not: the same subscriptions, statuses and outcomes in the same proportions.
-- By default autovacuum analyses a table once a tenth of it has changed, which for a window that
-- turns over within its retention is every few minutes at short retentions; each ANALYZE of
-- `webhook_events` reads and sorts a sample of full member bodies, a core for up to half a second,
-- and that stall set the soak's p99. Analysed first after a million changes (an hour at 50
-- changes/s and 5 subscriptions), then whenever five times the table has changed, the planner
-- still has statistics of the window's shape. Vacuum, which frees the purged rows and keeps the
-- row count the planner scales by, is left as it is.
ALTER TABLE "webhook_events" SET (autovacuum_analyze_scale_factor = 5, autovacuum_analyze_threshold = 1000000);
ALTER TABLE "webhook_attempts" SET (autovacuum_analyze_scale_factor = 5, autovacuum_analyze_threshold = 1000000);
