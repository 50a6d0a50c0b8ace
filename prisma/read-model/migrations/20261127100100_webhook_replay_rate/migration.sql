-- WEBHOOK_REPLAYS_PER_HOUR (docs/decisions/0012-webhooks.md): each subscription counts its replays in an
-- hour's window.
-- AlterTable
ALTER TABLE "webhook_subscriptions" ADD COLUMN     "replay_window_at" TIMESTAMPTZ(3),
ADD COLUMN     "replays_in_window" INTEGER NOT NULL DEFAULT 0;
