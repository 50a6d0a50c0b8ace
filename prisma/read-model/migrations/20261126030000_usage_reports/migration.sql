-- Usage reports (docs/decisions/0015-usage-reports.md): requests per hour, client, operation and
-- status, added up by the worker from the gateways' counts in Redis; and the names of the batches
-- already added, so a batch merged twice counts once.
-- CreateTable
CREATE TABLE "usage_hours" (
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "client_id" INTEGER NOT NULL,
    "operation" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "requests" BIGINT NOT NULL,
    "bytes_out" BIGINT NOT NULL,
    "ms_le_0" BIGINT NOT NULL DEFAULT 0,
    "ms_le_5" BIGINT NOT NULL DEFAULT 0,
    "ms_le_10" BIGINT NOT NULL DEFAULT 0,
    "ms_le_25" BIGINT NOT NULL DEFAULT 0,
    "ms_le_50" BIGINT NOT NULL DEFAULT 0,
    "ms_le_75" BIGINT NOT NULL DEFAULT 0,
    "ms_le_100" BIGINT NOT NULL DEFAULT 0,
    "ms_le_250" BIGINT NOT NULL DEFAULT 0,
    "ms_le_500" BIGINT NOT NULL DEFAULT 0,
    "ms_le_750" BIGINT NOT NULL DEFAULT 0,
    "ms_le_1000" BIGINT NOT NULL DEFAULT 0,
    "ms_le_2500" BIGINT NOT NULL DEFAULT 0,
    "ms_le_5000" BIGINT NOT NULL DEFAULT 0,
    "ms_le_7500" BIGINT NOT NULL DEFAULT 0,
    "ms_le_10000" BIGINT NOT NULL DEFAULT 0,
    "ms_over_10000" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "usage_hours_pkey" PRIMARY KEY ("client_id","hour","operation","status")
);

-- CreateTable
CREATE TABLE "usage_merges" (
    "batch" TEXT NOT NULL,
    "merged_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_merges_pkey" PRIMARY KEY ("batch")
);

-- CreateIndex
CREATE INDEX "usage_hours_hour_idx" ON "usage_hours"("hour");
