-- AlterTable
ALTER TABLE "sync_state" ADD COLUMN     "reconcile_cursor" BIGINT,
ADD COLUMN     "reconcile_started_at" TIMESTAMPTZ(3),
ADD COLUMN     "reconciled_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "sync_rejects" (
    "table_name" TEXT NOT NULL,
    "row_id" BIGINT NOT NULL,
    "reason" TEXT NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sync_rejects_pkey" PRIMARY KEY ("table_name","row_id")
);
