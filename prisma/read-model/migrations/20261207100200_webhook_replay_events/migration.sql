-- WEBHOOK_REPLAY_EVENTS_PER_HOUR (docs/decisions/0012-webhooks.md): each subscription counts the
-- events its replays set back to pending, in the hour's window of its replays.
-- AlterTable
ALTER TABLE "webhook_subscriptions" ADD COLUMN     "replay_events_in_window" INTEGER NOT NULL DEFAULT 0;
