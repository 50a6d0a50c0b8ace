/**
 * The read model's synced tables (read-model/tables/index.ts SYNC_TABLES), by name: what SQL
 * reaches, what an answer is read from (X-Data-Age) and the sync positions' keys.
 */
export const SQL_TABLES = [
  'branches',
  'roles',
  'packages',
  'market_categories',
  'members',
  'staff',
  'member_packages',
  'financial_transactions',
  'installment_plans',
  'installments',
  'market_products',
  'notifications',
  'private_lessons',
  'presence_records',
] as const;
export type SqlTable = (typeof SQL_TABLES)[number];
