import type { SyncTable } from '../table-definition.js';
import { branchesTable } from './branches.table.js';
import { financialTransactionsTable } from './financial-transactions.table.js';
import { installmentPlansTable } from './installment-plans.table.js';
import { installmentsTable } from './installments.table.js';
import { privateLessonsTable, presenceTable } from './lessons-and-presence.tables.js';
import { marketCategoriesTable, marketProductsTable } from './market.tables.js';
import { memberPackagesTable } from './member-packages.table.js';
import { membersTable } from './members.table.js';
import { notificationsTable } from './notifications.table.js';
import { packagesTable } from './packages.table.js';
import { rolesTable, staffTable } from './staff.tables.js';

/** Every synced table, sources before the tables that show their values. */
export const SYNC_TABLES: readonly SyncTable[] = [
  branchesTable,
  rolesTable,
  packagesTable,
  marketCategoriesTable,
  membersTable,
  staffTable,
  memberPackagesTable,
  financialTransactionsTable,
  installmentPlansTable,
  installmentsTable,
  marketProductsTable,
  notificationsTable,
  privateLessonsTable,
  presenceTable,
];

export function syncTableNamed(name: string): SyncTable {
  const table = SYNC_TABLES.find((t) => t.name === name);
  if (!table) throw new Error(`unknown sync table ${name}`);
  return table;
}
