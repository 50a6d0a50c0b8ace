-- The classes of members' personal data a client holds (docs/decisions/0023-data-classes.md).
-- Clients made before this release keep every class, marked for the operator's review; so does
-- a client an earlier release makes during a rolling upgrade, which never names the columns.
-- This release always writes both.
ALTER TABLE "api_clients"
  ADD COLUMN "data_classes" TEXT[] NOT NULL
    DEFAULT ARRAY['basic', 'contact', 'identity', 'address', 'access', 'finance', 'staff'],
  ADD COLUMN "data_classes_review" BOOLEAN NOT NULL DEFAULT true;
