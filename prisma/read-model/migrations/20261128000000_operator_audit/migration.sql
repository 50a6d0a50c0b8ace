-- The operator audit (docs/decisions/0019-console.md): every operator action, from the console
-- or the CLI. The worker deletes records older than AUDIT_RETENTION_DAYS through the index on at.
-- CreateTable
CREATE TABLE "operator_audit" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "client_key" TEXT,
    "target" TEXT,
    "address" TEXT,

    CONSTRAINT "operator_audit_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "operator_audit_at_idx" ON "operator_audit"("at");

-- CreateIndex
CREATE INDEX "operator_audit_client_key_at_idx" ON "operator_audit"("client_key", "at");
