// The change feed's types: what GET /changes (gateway/src/features/changes) shows, each with the
// read-model table it is kept in, the scope that reads it and the resource that renders it.
import type { Scope } from '../scopes.js';
import type { SelectedResource } from '../sql-values.js';
import type { SqlTable } from '../sql-table.js';
import { branchResource } from '../resources/branches.js';
import { installmentPlanResource, transactionResource } from '../resources/financial.js';
import { marketCategoryResource, marketProductResource } from '../resources/market.js';
import { memberPackageResource, memberResource } from '../resources/members.js';
import { notificationResource } from '../resources/notifications.js';
import { packageResource } from '../resources/packages.js';
import { presenceResource } from '../resources/presence.js';
import { privateLessonResource } from '../resources/private-lessons.js';
import { staffResource } from '../resources/staff.js';

export interface ChangeType {
  table: SqlTable;
  scope: Scope;
  resource: SelectedResource<Record<string, unknown>>;
}

const changeType = (
  table: SqlTable,
  scope: Scope,
  resource: ChangeType['resource'],
): ChangeType => ({ table, scope, resource });

/** The feed's types: the table each is kept in, the scope that reads it, its resource. */
export const CHANGE_TYPES: Record<string, ChangeType> = {
  members: changeType('members', 'members:read', memberResource),
  member_packages: changeType('member_packages', 'members:read', memberPackageResource),
  branches: changeType('branches', 'branches:read', branchResource),
  packages: changeType('packages', 'packages:read', packageResource),
  financial_transactions: changeType(
    'financial_transactions',
    'financial:read',
    transactionResource,
  ),
  installment_plans: changeType('installment_plans', 'financial:read', installmentPlanResource),
  staff: changeType('staff', 'staff:read', staffResource),
  notifications: changeType('notifications', 'notifications:read', notificationResource),
  private_lessons: changeType('private_lessons', 'private_lessons:read', privateLessonResource),
  presence: changeType('presence_records', 'presence:read', presenceResource),
  market_products: changeType('market_products', 'market:read', marketProductResource),
  market_categories: changeType('market_categories', 'market:read', marketCategoryResource),
};
export const TYPE_NAMES = Object.keys(CHANGE_TYPES);

/** The feed type `name` names; undefined for any other text ("constructor" included). */
export function changeTypeNamed(name: string): ChangeType | undefined {
  return Object.hasOwn(CHANGE_TYPES, name) ? CHANGE_TYPES[name] : undefined;
}

/** Whether `scopes` read the feed type `name`: it is one, and its read scope is among them. */
export function scopesRead(scopes: readonly string[], name: string): boolean {
  const type = changeTypeNamed(name);
  return type !== undefined && scopes.includes(type.scope);
}

/**
 * The types among `names` (by default every feed type) that `scopes` read: what GET /changes
 * shows by default, what a subscription takes by default, and what dispatch follows.
 */
export function typesRead(scopes: readonly string[], names: readonly string[] = TYPE_NAMES) {
  return names.filter((name) => scopesRead(scopes, name));
}
