-- CreateTable
CREATE TABLE "member_write_audit" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "client_id" INTEGER NOT NULL,
    "client_key" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "member_id" INTEGER,
    "status" INTEGER NOT NULL,
    "error" TEXT,
    "idempotency_key" TEXT,
    "before" JSONB,
    "after" JSONB,

    CONSTRAINT "member_write_audit_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "member_write_audit_member_id_at_idx" ON "member_write_audit"("member_id", "at");

-- CreateIndex
CREATE INDEX "member_write_audit_client_key_at_idx" ON "member_write_audit"("client_key", "at");

-- CreateIndex
CREATE INDEX "member_write_audit_at_idx" ON "member_write_audit"("at");
