-- Tokens end when the operator says so (docs/decisions/0003-tokens.md): a client's
-- token_generation moves whenever all of its tokens end, and a token is valid only under the
-- generation its chain was issued in, so a pair saved by a refresh racing the revocation is born
-- dead. A refresh chain lives at most REFRESH_CHAIN_MAX_DAYS from the token request that began it.
ALTER TABLE "api_clients" ADD COLUMN     "token_generation" INTEGER NOT NULL DEFAULT 0;

ALTER TABLE "api_tokens" ADD COLUMN     "chain_started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "generation" INTEGER NOT NULL DEFAULT 0;

-- Chains begun before this migration began with their oldest pair.
UPDATE "api_tokens" t SET "chain_started_at" = c.started
  FROM (SELECT "chain_id", min("created_at") AS started FROM "api_tokens" GROUP BY "chain_id") c
 WHERE t."chain_id" = c."chain_id";

-- The retention purge's two conditions (TOKEN_RETENTION_DAYS).
CREATE INDEX "api_tokens_refresh_expires_at_idx" ON "api_tokens"("refresh_expires_at");

CREATE INDEX "api_tokens_revoked_at_idx" ON "api_tokens"("revoked_at");
