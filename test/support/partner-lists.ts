// What a partner keeping a copy reads: the read scopes, and each feed type's list path answering
// the same objects. Apart from partner-copy.ts (which asserts with vitest) so that the soak
// benchmark's feed follower compares its copy by the same table.
import type { Scope } from '#api/scopes.js';

export const READ_SCOPES: Scope[] = [
  'members:list',
  'members:read',
  'branches:read',
  'packages:read',
  'financial:read',
  'market:read',
  'staff:read',
  'notifications:read',
  'private_lessons:read',
  'presence:read',
];

/** Each feed type and the list path answering the same objects. */
export const LISTS: Record<string, string> = {
  members: '/members',
  branches: '/branches',
  packages: '/packages',
  financial_transactions: '/financial/transactions',
  installment_plans: '/financial/installments',
  staff: '/staff',
  notifications: '/notifications',
  private_lessons: '/private-lessons',
  presence: '/presence',
  market_products: '/market/products',
  market_categories: '/market/categories',
};
