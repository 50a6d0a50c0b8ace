-- A webhook subscription remembers the credentials that created it or last pointed it at its URL
-- (docs/decisions/0012-webhooks.md, "Credentials"): the client's token generation and the
-- secret_version its caller's token chain (or portal session) began under. When those end, the
-- subscription is disabled with reason `credentials-ended`.
ALTER TABLE "webhook_subscriptions" ADD COLUMN     "credentials_generation" INTEGER,
ADD COLUMN     "credentials_secret_version" INTEGER;

-- The subscriptions made so far stand on the client's credentials of now: the next end of them
-- disables them. The table holds a few rows per client.
UPDATE "webhook_subscriptions" s
   SET "credentials_generation" = c."token_generation",
       "credentials_secret_version" = c."secret_version"
  FROM "api_clients" c
 WHERE c."id" = s."client_id";

-- The release before this one, still running during a rolling upgrade (decision 0021), creates
-- subscriptions without them: those take the client's credentials of the moment.
CREATE FUNCTION webhook_subscription_credentials() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."credentials_generation" IS NULL OR NEW."credentials_secret_version" IS NULL THEN
    SELECT "token_generation", "secret_version"
      INTO NEW."credentials_generation", NEW."credentials_secret_version"
      FROM "api_clients" WHERE "id" = NEW."client_id";
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER "webhook_subscription_credentials" BEFORE INSERT ON "webhook_subscriptions"
  FOR EACH ROW EXECUTE FUNCTION webhook_subscription_credentials();

ALTER TABLE "webhook_subscriptions" ALTER COLUMN "credentials_generation" SET NOT NULL,
ALTER COLUMN "credentials_secret_version" SET NOT NULL;
