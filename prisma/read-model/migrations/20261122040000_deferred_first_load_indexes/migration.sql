-- AlterTable
ALTER TABLE "sync_state" ADD COLUMN     "deferred_indexes" TEXT[] DEFAULT ARRAY[]::TEXT[];
