-- Client secrets rotated with an overlap (docs/decisions/0003-tokens.md): the replaced secret
-- keeps issuing tokens until previous_secret_until, and a pair is valid under the secret its
-- chain began with only while that secret is current or still within its overlap.
ALTER TABLE "api_clients" ADD COLUMN     "previous_secret_hash" TEXT,
ADD COLUMN     "previous_secret_until" TIMESTAMPTZ(3),
ADD COLUMN     "secret_version" INTEGER NOT NULL DEFAULT 0;

ALTER TABLE "api_tokens" ADD COLUMN     "secret_version" INTEGER NOT NULL DEFAULT 0;

-- Test events (docs/decisions/0012-webhooks.md): each subscription counts those sent in a
-- minute's window.
ALTER TABLE "webhook_subscriptions" ADD COLUMN     "test_window_at" TIMESTAMPTZ(3),
ADD COLUMN     "tests_in_window" INTEGER NOT NULL DEFAULT 0;
