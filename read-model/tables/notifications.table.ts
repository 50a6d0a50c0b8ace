import { bool, instant, int, intOrNull, text } from '../legacy-values.js';
import type { SyncTable } from '../table-definition.js';

export const notificationsTable: SyncTable = {
  name: 'notifications',
  from: { table: 'notifications', alias: 'n' },
  select: `n.id, n.branch_id, n.title, n.message, n.type, n.is_read, CAST(n.created_at AS CHAR) AS created_at`,
  // No updated_at: is_read flips in place, and rows older than 90 days are DELETEd nightly.
  changedAt: null,
  key: 'n.id',
  // A notification without a branch is addressed to every branch.
  branch: { column: 'branch_id', nullIsEveryBranch: true },
  columns: {
    id: 'int',
    branch_id: 'int',
    title: 'text',
    message: 'text',
    type: 'text',
    is_read: 'bool',
    created_at: 'instant',
  },
  map: (row) => ({
    id: int(row.id),
    branch_id: intOrNull(row.branch_id),
    title: text(row.title),
    message: text(row.message),
    type: text(row.type),
    is_read: bool(row.is_read),
    created_at: instant(row.created_at, 'created_at'),
  }),
};
