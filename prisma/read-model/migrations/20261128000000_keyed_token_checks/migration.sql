-- Tokens carry a check keyed under SECRETS_KEY (docs/decisions/0003-tokens.md). Pairs issued
-- before, and by instances of the earlier version during a rolling upgrade (hence the default),
-- carry the unkeyed check: they stay valid, and are looked up, while any of them can be used.
ALTER TABLE "api_tokens" ADD COLUMN "keyed_check" BOOLEAN NOT NULL DEFAULT false;
