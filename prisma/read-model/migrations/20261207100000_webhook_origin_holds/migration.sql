-- The operator's hold covers the target's origin, host and port, not one path
-- (docs/decisions/0012-webhooks.md); `npm run webhooks -- disable ID --path-only` holds the path
-- alone, as every hold did before.
-- AlterTable
ALTER TABLE "webhook_subscriptions" ADD COLUMN     "hold_path_only" BOOLEAN NOT NULL DEFAULT false;

-- Holds of deleted subscriptions become holds of their origin: the text before the path's first
-- "/" of the stored host:port/path (a host never holds one). One row per client and origin, the
-- oldest hold's.
DELETE FROM "webhook_held_targets" a
 USING "webhook_held_targets" b
 WHERE a."client_id" = b."client_id"
   AND split_part(a."target", '/', 1) = split_part(b."target", '/', 1)
   AND (a."held_at", a."target") > (b."held_at", b."target");
UPDATE "webhook_held_targets" SET "target" = split_part("target", '/', 1);

-- AlterTable
ALTER TABLE "webhook_held_targets" DROP CONSTRAINT "webhook_held_targets_pkey",
ADD COLUMN     "path_only" BOOLEAN NOT NULL DEFAULT false,
ADD CONSTRAINT "webhook_held_targets_pkey" PRIMARY KEY ("client_id", "target", "path_only");
