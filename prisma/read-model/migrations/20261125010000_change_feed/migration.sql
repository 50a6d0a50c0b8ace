-- The change feed (docs/decisions/0011-change-feed.md): every feed table row carries the
-- transaction that last changed it; deletes and departures from a branch are kept beside.
CREATE FUNCTION read_model_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.change_xid := pg_current_xact_id()::text::bigint;
  NEW.changed_at := now();
  RETURN NEW;
END $$;

-- The same, for tables whose rows belong to a branch: a row that leaves its branch leaves a
-- departure, a delete for the clients bound to the branch it left.
CREATE FUNCTION read_model_changed_branch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.change_xid := pg_current_xact_id()::text::bigint;
  NEW.changed_at := now();
  IF OLD.branch_id IS DISTINCT FROM NEW.branch_id THEN
    INSERT INTO change_departures (table_name, row_id, branch_key, change_xid, changed_at)
    VALUES (TG_TABLE_NAME, OLD.id, COALESCE(OLD.branch_id, 0), NEW.change_xid, NEW.changed_at)
    ON CONFLICT (table_name, row_id, branch_key) DO UPDATE
      SET change_xid = EXCLUDED.change_xid, changed_at = EXCLUDED.changed_at;
  END IF;
  RETURN NEW;
END $$;

-- CreateTable
CREATE TABLE "change_departures" (
    "table_name" TEXT NOT NULL,
    "row_id" BIGINT NOT NULL,
    "branch_key" INTEGER NOT NULL,
    "change_xid" BIGINT NOT NULL,
    "changed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "change_departures_pkey" PRIMARY KEY ("table_name","row_id","branch_key")
);
CREATE INDEX "change_departures_table_name_change_xid_row_id_idx" ON "change_departures"("table_name", "change_xid", "row_id");
CREATE INDEX "change_departures_changed_at_idx" ON "change_departures"("changed_at");

ALTER TABLE "sync_tombstones" ADD COLUMN "branch_id" INTEGER,
ADD COLUMN "shown" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN "change_xid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint;
CREATE INDEX "sync_tombstones_table_name_change_xid_row_id_idx" ON "sync_tombstones"("table_name", "change_xid", "row_id");
-- A tombstone changes in the feed only when a later delete removed the row again (deleted_at).
CREATE FUNCTION tombstone_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.change_xid := pg_current_xact_id()::text::bigint;
  RETURN NEW;
END $$;
CREATE TRIGGER "sync_tombstones_changed" BEFORE UPDATE ON "sync_tombstones" FOR EACH ROW
  WHEN (NEW.deleted_at IS DISTINCT FROM OLD.deleted_at) EXECUTE FUNCTION tombstone_changed();

ALTER TABLE "branches" ADD COLUMN "change_xid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint,
ADD COLUMN "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
CREATE INDEX "branches_change_xid_id_idx" ON "branches"("change_xid", "id");
CREATE TRIGGER "branches_changed" BEFORE UPDATE ON "branches" FOR EACH ROW EXECUTE FUNCTION read_model_changed();

ALTER TABLE "members" ADD COLUMN "change_xid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint,
ADD COLUMN "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
CREATE INDEX "members_change_xid_id_idx" ON "members"("change_xid", "id");
CREATE TRIGGER "members_changed" BEFORE UPDATE ON "members" FOR EACH ROW EXECUTE FUNCTION read_model_changed_branch();

ALTER TABLE "packages" ADD COLUMN "change_xid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint,
ADD COLUMN "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
CREATE INDEX "packages_change_xid_id_idx" ON "packages"("change_xid", "id");
CREATE TRIGGER "packages_changed" BEFORE UPDATE ON "packages" FOR EACH ROW EXECUTE FUNCTION read_model_changed();

ALTER TABLE "member_packages" ADD COLUMN "change_xid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint,
ADD COLUMN "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
CREATE INDEX "member_packages_change_xid_id_idx" ON "member_packages"("change_xid", "id");
CREATE TRIGGER "member_packages_changed" BEFORE UPDATE ON "member_packages" FOR EACH ROW EXECUTE FUNCTION read_model_changed_branch();

ALTER TABLE "financial_transactions" ADD COLUMN "change_xid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint,
ADD COLUMN "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
CREATE INDEX "financial_transactions_change_xid_id_idx" ON "financial_transactions"("change_xid", "id");
CREATE TRIGGER "financial_transactions_changed" BEFORE UPDATE ON "financial_transactions" FOR EACH ROW EXECUTE FUNCTION read_model_changed_branch();

ALTER TABLE "installment_plans" ADD COLUMN "change_xid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint,
ADD COLUMN "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
CREATE INDEX "installment_plans_change_xid_id_idx" ON "installment_plans"("change_xid", "id");
CREATE TRIGGER "installment_plans_changed" BEFORE UPDATE ON "installment_plans" FOR EACH ROW EXECUTE FUNCTION read_model_changed_branch();

ALTER TABLE "market_categories" ADD COLUMN "change_xid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint,
ADD COLUMN "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
CREATE INDEX "market_categories_change_xid_id_idx" ON "market_categories"("change_xid", "id");
CREATE TRIGGER "market_categories_changed" BEFORE UPDATE ON "market_categories" FOR EACH ROW EXECUTE FUNCTION read_model_changed();

ALTER TABLE "market_products" ADD COLUMN "change_xid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint,
ADD COLUMN "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
CREATE INDEX "market_products_change_xid_id_idx" ON "market_products"("change_xid", "id");
CREATE TRIGGER "market_products_changed" BEFORE UPDATE ON "market_products" FOR EACH ROW EXECUTE FUNCTION read_model_changed();

ALTER TABLE "staff" ADD COLUMN "change_xid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint,
ADD COLUMN "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
CREATE INDEX "staff_change_xid_id_idx" ON "staff"("change_xid", "id");
CREATE TRIGGER "staff_changed" BEFORE UPDATE ON "staff" FOR EACH ROW EXECUTE FUNCTION read_model_changed_branch();

ALTER TABLE "notifications" ADD COLUMN "change_xid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint,
ADD COLUMN "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
CREATE INDEX "notifications_change_xid_id_idx" ON "notifications"("change_xid", "id");
CREATE TRIGGER "notifications_changed" BEFORE UPDATE ON "notifications" FOR EACH ROW EXECUTE FUNCTION read_model_changed_branch();

ALTER TABLE "private_lessons" ADD COLUMN "change_xid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint,
ADD COLUMN "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
CREATE INDEX "private_lessons_change_xid_id_idx" ON "private_lessons"("change_xid", "id");
CREATE TRIGGER "private_lessons_changed" BEFORE UPDATE ON "private_lessons" FOR EACH ROW EXECUTE FUNCTION read_model_changed_branch();

ALTER TABLE "presence_records" ADD COLUMN "change_xid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint,
ADD COLUMN "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
CREATE INDEX "presence_records_change_xid_id_idx" ON "presence_records"("change_xid", "id");
CREATE TRIGGER "presence_records_changed" BEFORE UPDATE ON "presence_records" FOR EACH ROW EXECUTE FUNCTION read_model_changed_branch();
