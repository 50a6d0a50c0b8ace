-- CreateTable
CREATE TABLE "packages" (
    "id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "price" DECIMAL(10,2) NOT NULL,
    "duration_days" INTEGER,
    "duration_months" INTEGER,
    "is_active" BOOLEAN NOT NULL,
    "sort_order" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(0) NOT NULL,
    "updated_at" TIMESTAMPTZ(0) NOT NULL,

    CONSTRAINT "packages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "member_packages" (
    "id" INTEGER NOT NULL,
    "member_id" INTEGER NOT NULL,
    "package_id" INTEGER NOT NULL,
    "branch_id" INTEGER NOT NULL,
    "package_type_name" TEXT NOT NULL,
    "start_date" DATE NOT NULL,
    "end_date" DATE NOT NULL,
    "status" TEXT NOT NULL,
    "price_paid" DECIMAL(10,2) NOT NULL,
    "created_at" TIMESTAMPTZ(0) NOT NULL,
    "updated_at" TIMESTAMPTZ(0) NOT NULL,

    CONSTRAINT "member_packages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "financial_transactions" (
    "id" INTEGER NOT NULL,
    "member_id" INTEGER,
    "transaction_type" TEXT NOT NULL,
    "transaction_code" TEXT NOT NULL,
    "reference_id" INTEGER,
    "reference_table" TEXT,
    "amount" DECIMAL(12,2) NOT NULL,
    "balance_before" DECIMAL(12,2) NOT NULL,
    "balance_after" DECIMAL(12,2) NOT NULL,
    "payment_method" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "staff_name" TEXT,
    "staff_id" INTEGER,
    "branch_id" INTEGER NOT NULL,
    "transaction_date" TIMESTAMPTZ(0) NOT NULL,
    "is_active" BOOLEAN NOT NULL,
    "is_cancelled" BOOLEAN NOT NULL,
    "cancelled_at" TIMESTAMPTZ(0),
    "cancel_reason" TEXT,
    "cancelled_by" INTEGER,
    "created_at" TIMESTAMPTZ(0) NOT NULL,
    "updated_at" TIMESTAMPTZ(0) NOT NULL,

    CONSTRAINT "financial_transactions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "installment_plans" (
    "id" INTEGER NOT NULL,
    "member_id" INTEGER NOT NULL,
    "member_name" TEXT NOT NULL,
    "branch_id" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "total_amount" DECIMAL(12,2) NOT NULL,
    "collected_amount" DECIMAL(12,2) NOT NULL,
    "created_at" TIMESTAMPTZ(0) NOT NULL,
    "updated_at" TIMESTAMPTZ(0) NOT NULL,

    CONSTRAINT "installment_plans_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "installments" (
    "id" INTEGER NOT NULL,
    "plan_id" INTEGER NOT NULL,
    "due_date" DATE NOT NULL,
    "amount" DECIMAL(12,2) NOT NULL,
    "is_paid" BOOLEAN NOT NULL,
    "paid_at" TIMESTAMPTZ(0),
    "created_at" TIMESTAMPTZ(0) NOT NULL,
    "updated_at" TIMESTAMPTZ(0) NOT NULL,

    CONSTRAINT "installments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "market_categories" (
    "id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "is_active" BOOLEAN NOT NULL,
    "created_at" TIMESTAMPTZ(0) NOT NULL,

    CONSTRAINT "market_categories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "market_products" (
    "id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "category_id" INTEGER NOT NULL,
    "category_name" TEXT NOT NULL,
    "price" DECIMAL(10,2) NOT NULL,
    "stock" INTEGER NOT NULL,
    "is_active" BOOLEAN NOT NULL,
    "created_at" TIMESTAMPTZ(0) NOT NULL,
    "updated_at" TIMESTAMPTZ(0) NOT NULL,
    "search_text" TEXT NOT NULL,

    CONSTRAINT "market_products_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "roles" (
    "id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,

    CONSTRAINT "roles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "staff" (
    "id" INTEGER NOT NULL,
    "full_name" TEXT NOT NULL,
    "username" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "phone" TEXT NOT NULL,
    "branch_id" INTEGER NOT NULL,
    "branch_name" TEXT NOT NULL,
    "role_id" INTEGER NOT NULL,
    "role_name" TEXT NOT NULL,
    "is_active" BOOLEAN NOT NULL,
    "last_login" TIMESTAMPTZ(0),
    "created_at" TIMESTAMPTZ(0) NOT NULL,
    "updated_at" TIMESTAMPTZ(0) NOT NULL,
    "search_text" TEXT NOT NULL,

    CONSTRAINT "staff_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notifications" (
    "id" INTEGER NOT NULL,
    "branch_id" INTEGER,
    "title" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "is_read" BOOLEAN NOT NULL,
    "created_at" TIMESTAMPTZ(0) NOT NULL,

    CONSTRAINT "notifications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "private_lessons" (
    "id" INTEGER NOT NULL,
    "member_id" INTEGER NOT NULL,
    "member_name" TEXT NOT NULL,
    "branch_id" INTEGER NOT NULL,
    "package_id" INTEGER NOT NULL,
    "package_name" TEXT NOT NULL,
    "trainer_id" INTEGER,
    "total_lessons" INTEGER NOT NULL,
    "remaining_lessons" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(0) NOT NULL,
    "updated_at" TIMESTAMPTZ(0) NOT NULL,

    CONSTRAINT "private_lessons_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "presence_records" (
    "id" BIGINT NOT NULL,
    "member_id" INTEGER NOT NULL,
    "member_name" TEXT NOT NULL,
    "branch_id" INTEGER NOT NULL,
    "entry_time" TIMESTAMPTZ(0) NOT NULL,
    "exit_time" TIMESTAMPTZ(0),
    "direction" TEXT NOT NULL,
    "access_method" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(0) NOT NULL,
    "updated_at" TIMESTAMPTZ(0) NOT NULL,

    CONSTRAINT "presence_records_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "member_packages_member_id_id_idx" ON "member_packages"("member_id", "id");

-- CreateIndex
CREATE INDEX "member_packages_package_id_idx" ON "member_packages"("package_id");

-- CreateIndex
CREATE INDEX "member_packages_branch_id_status_end_date_idx" ON "member_packages"("branch_id", "status", "end_date");

-- CreateIndex
CREATE INDEX "financial_transactions_branch_id_transaction_date_id_idx" ON "financial_transactions"("branch_id", "transaction_date" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "financial_transactions_transaction_date_id_idx" ON "financial_transactions"("transaction_date" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "financial_transactions_member_id_transaction_date_id_idx" ON "financial_transactions"("member_id", "transaction_date" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "financial_transactions_staff_id_idx" ON "financial_transactions"("staff_id");

-- CreateIndex
CREATE INDEX "installment_plans_branch_id_id_idx" ON "installment_plans"("branch_id", "id");

-- CreateIndex
CREATE INDEX "installment_plans_member_id_idx" ON "installment_plans"("member_id");

-- CreateIndex
CREATE INDEX "installments_plan_id_idx" ON "installments"("plan_id");

-- CreateIndex
CREATE INDEX "market_products_category_id_idx" ON "market_products"("category_id");

-- CreateIndex
CREATE INDEX "market_products_search_text_idx" ON "market_products" USING GIN ("search_text" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "staff_branch_id_id_idx" ON "staff"("branch_id", "id");

-- CreateIndex
CREATE INDEX "staff_role_id_idx" ON "staff"("role_id");

-- CreateIndex
CREATE INDEX "staff_search_text_idx" ON "staff" USING GIN ("search_text" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "notifications_branch_id_created_at_id_idx" ON "notifications"("branch_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "notifications_created_at_id_idx" ON "notifications"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "private_lessons_member_id_idx" ON "private_lessons"("member_id");

-- CreateIndex
CREATE INDEX "private_lessons_branch_id_id_idx" ON "private_lessons"("branch_id", "id");

-- CreateIndex
CREATE INDEX "private_lessons_package_id_idx" ON "private_lessons"("package_id");

-- CreateIndex
CREATE INDEX "presence_records_branch_id_entry_time_id_idx" ON "presence_records"("branch_id", "entry_time" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "presence_records_entry_time_id_idx" ON "presence_records"("entry_time" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "presence_records_member_id_entry_time_id_idx" ON "presence_records"("member_id", "entry_time" DESC, "id" DESC);
