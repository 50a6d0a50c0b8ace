import type { SyncTable } from '../table-definition.js';
import { branchesTable } from './branches.table.js';
import { membersTable } from './members.table.js';

/** Every synced table, sources before the tables that show their values. */
export const SYNC_TABLES: readonly SyncTable[] = [branchesTable, membersTable];
