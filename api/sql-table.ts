/** Tables reachable by SQL: the read model's synced tables (read-model/tables/). */
export type SqlTable =
  | 'members'
  | 'member_packages'
  | 'branches'
  | 'packages'
  | 'financial_transactions'
  | 'installment_plans'
  | 'staff'
  | 'notifications'
  | 'private_lessons'
  | 'presence_records'
  | 'market_products'
  | 'market_categories';
