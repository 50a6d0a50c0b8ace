-- Sync health the console shows (docs/decisions/0019-console.md): each table's last
-- `npm run sync:verify` and what it found, and the binary log's fallbacks to polling.
-- AlterTable
ALTER TABLE "sync_state" ADD COLUMN     "verified_at" TIMESTAMPTZ(3),
ADD COLUMN     "verify_differences" INTEGER;

-- AlterTable
ALTER TABLE "binlog_position" ADD COLUMN     "fallbacks" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "fell_back_at" TIMESTAMPTZ(3);
