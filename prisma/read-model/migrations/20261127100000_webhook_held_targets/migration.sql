-- A subscription the operator disabled stays refused for its client after the client deletes it
-- (docs/decisions/0012-webhooks.md): its normalised target is held here until the operator enables it.
-- CreateTable
CREATE TABLE "webhook_held_targets" (
    "client_id" INTEGER NOT NULL,
    "target" TEXT NOT NULL,
    "subscription_id" INTEGER NOT NULL,
    "held_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_held_targets_pkey" PRIMARY KEY ("client_id","target")
);

-- CreateIndex
CREATE INDEX "webhook_held_targets_subscription_id_idx" ON "webhook_held_targets"("subscription_id");

-- AddForeignKey
ALTER TABLE "webhook_held_targets" ADD CONSTRAINT "webhook_held_targets_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "api_clients"("id") ON DELETE CASCADE ON UPDATE CASCADE;
