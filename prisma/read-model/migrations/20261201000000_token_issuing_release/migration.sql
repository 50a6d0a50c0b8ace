-- Which release issued a pair (docs/decisions/0003-tokens.md, rolling upgrades): true for every
-- pair saved by a release that knows keyed checks, false (the default) for those of the earlier
-- release, which never names the column. While an access token of the earlier release is still
-- valid, that release may still run beside this one: this release then issues tokens of the
-- earlier form, which both releases accept.
ALTER TABLE "api_tokens" ADD COLUMN "issued_by_keyed_release" BOOLEAN NOT NULL DEFAULT false;
