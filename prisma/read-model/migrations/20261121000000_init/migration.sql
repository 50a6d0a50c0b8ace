-- pg_trgm backs the trigram (substring) search indexes. It is not declared in schema.prisma:
-- with the postgresqlExtensions preview feature the schema engine never reports it as applied.
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateTable
CREATE TABLE "branches" (
    "id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "address" TEXT,
    "status" TEXT NOT NULL,
    "manager_name" TEXT,
    "phone" TEXT,
    "email" TEXT,
    "founded_at" DATE,
    "created_at" TIMESTAMPTZ(0) NOT NULL,
    "updated_at" TIMESTAMPTZ(0) NOT NULL,

    CONSTRAINT "branches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "members" (
    "id" INTEGER NOT NULL,
    "full_name" TEXT NOT NULL,
    "surname" TEXT,
    "phone" TEXT NOT NULL,
    "email" TEXT,
    "tc_no" TEXT,
    "member_no" TEXT NOT NULL,
    "gender" TEXT,
    "birth_date" DATE,
    "branch_id" INTEGER NOT NULL,
    "branch_name" TEXT NOT NULL,
    "entry_status" BOOLEAN NOT NULL,
    "balance" DECIMAL(12,2) NOT NULL,
    "freeze_status" BOOLEAN NOT NULL,
    "status" TEXT NOT NULL,
    "registered_at" TIMESTAMPTZ(0) NOT NULL,
    "address" TEXT,
    "qr_code" TEXT NOT NULL,
    "referral_code" TEXT,
    "created_at" TIMESTAMPTZ(0) NOT NULL,
    "updated_at" TIMESTAMPTZ(0) NOT NULL,
    "search_text" TEXT NOT NULL,
    "phone_digits" TEXT NOT NULL,

    CONSTRAINT "members_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sync_state" (
    "table_name" TEXT NOT NULL,
    "cursor_changed_at" TIMESTAMP(0),
    "cursor_id" BIGINT NOT NULL DEFAULT 0,
    "synced_at" TIMESTAMPTZ(3),
    "rows_synced" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sync_state_pkey" PRIMARY KEY ("table_name")
);

-- CreateTable
CREATE TABLE "api_clients" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "client_key" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "branch_id" INTEGER,
    "rate_limit_minute" INTEGER,
    "rate_limit_hour" INTEGER,
    "rate_limit_day" INTEGER,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_clients_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" UUID NOT NULL,
    "client_id" INTEGER NOT NULL,
    "chain_id" UUID NOT NULL,
    "access_token_hash" TEXT NOT NULL,
    "refresh_token_hash" TEXT,
    "scopes" TEXT[],
    "access_expires_at" TIMESTAMPTZ(3) NOT NULL,
    "refresh_expires_at" TIMESTAMPTZ(3) NOT NULL,
    "rotated_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "revoke_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "branches_status_idx" ON "branches"("status");

-- CreateIndex
CREATE INDEX "members_branch_id_id_idx" ON "members"("branch_id", "id");

-- CreateIndex
CREATE INDEX "members_status_id_idx" ON "members"("status", "id");

-- CreateIndex
CREATE INDEX "members_search_text_idx" ON "members" USING GIN ("search_text" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "members_phone_digits_idx" ON "members" USING GIN ("phone_digits" gin_trgm_ops);

-- CreateIndex
CREATE UNIQUE INDEX "api_clients_client_key_key" ON "api_clients"("client_key");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_access_token_hash_key" ON "api_tokens"("access_token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_refresh_token_hash_key" ON "api_tokens"("refresh_token_hash");

-- CreateIndex
CREATE INDEX "api_tokens_client_id_idx" ON "api_tokens"("client_id");

-- CreateIndex
CREATE INDEX "api_tokens_chain_id_idx" ON "api_tokens"("chain_id");

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "api_clients"("id") ON DELETE CASCADE ON UPDATE CASCADE;
