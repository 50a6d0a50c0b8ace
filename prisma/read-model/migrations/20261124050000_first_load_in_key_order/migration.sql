-- AlterTable
ALTER TABLE "sync_state" ADD COLUMN     "load_cursor" BIGINT;
