-- The order of legacy reads (docs/decisions/0002-sync-by-polling-with-look-back.md): every
-- read-model row remembers the read that last wrote it, and deletes leave a tombstone.
CREATE SEQUENCE "sync_read_order";

ALTER TABLE "branches" ADD COLUMN "read_order" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "members" ADD COLUMN "read_order" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "packages" ADD COLUMN "read_order" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "member_packages" ADD COLUMN "read_order" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "financial_transactions" ADD COLUMN "read_order" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "installment_plans" ADD COLUMN "read_order" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "installments" ADD COLUMN "read_order" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "market_categories" ADD COLUMN "read_order" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "market_products" ADD COLUMN "read_order" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "roles" ADD COLUMN "read_order" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "staff" ADD COLUMN "read_order" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "notifications" ADD COLUMN "read_order" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "private_lessons" ADD COLUMN "read_order" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "presence_records" ADD COLUMN "read_order" BIGINT NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "sync_tombstones" (
    "table_name" TEXT NOT NULL,
    "row_id" BIGINT NOT NULL,
    "read_order" BIGINT NOT NULL,
    "deleted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sync_tombstones_pkey" PRIMARY KEY ("table_name","row_id")
);

-- CreateIndex
CREATE INDEX "sync_tombstones_deleted_at_idx" ON "sync_tombstones"("deleted_at");
