-- Where the worker following the legacy binary log stands (docs/decisions/0016-change-capture-
-- from-the-binary-log.md): one row, written in the transaction that applies a batch of changes.
-- CreateTable
CREATE TABLE "binlog_position" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "server_id" BIGINT NOT NULL,
    "file" TEXT NOT NULL,
    "position" BIGINT NOT NULL,
    "gtid" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "binlog_position_pkey" PRIMARY KEY ("id")
);
