import { Prisma } from '../../prisma/generated/legacy/client.js';
import { instant, instantOrNull, int, intOrNull, text, timestamps } from '../legacy-values.js';
import type { SyncTable } from '../table-definition.js';

export const privateLessonsTable: SyncTable = {
  name: 'private_lessons',
  source: Prisma.sql`SELECT pl.id, pl.member_id, CONCAT_WS(' ', m.full_name, m.surname) AS member_name,
    m.branch_id, pl.package_id, COALESCE(p.name, '') AS package_name, pl.trainer_id, pl.total_lessons,
    pl.remaining_lessons, CAST(pl.created_at AS CHAR) AS created_at, CAST(pl.updated_at AS CHAR) AS updated_at
    FROM private_lessons pl LEFT JOIN members m ON m.id = pl.member_id LEFT JOIN packages p ON p.id = pl.package_id`,
  changedAt: 'pl.updated_at',
  key: 'pl.id',
  branch: { column: 'branch_id' },
  columns: {
    id: 'int',
    member_id: 'int',
    member_name: 'text',
    branch_id: 'int',
    package_id: 'int',
    package_name: 'text',
    trainer_id: 'int',
    total_lessons: 'int',
    remaining_lessons: 'int',
    created_at: 'instant',
    updated_at: 'instant',
  },
  map: (row) => ({
    id: int(row.id),
    member_id: int(row.member_id),
    member_name: text(row.member_name),
    // A lesson belongs to its member's branch: without the member it has none to be listed in.
    branch_id: int(row.branch_id, `branch_id: member ${String(row.member_id)} does not exist`),
    package_id: int(row.package_id),
    package_name: text(row.package_name),
    trainer_id: intOrNull(row.trainer_id),
    total_lessons: int(row.total_lessons),
    remaining_lessons: int(row.remaining_lessons),
    ...timestamps(row),
  }),
};

export const presenceTable: SyncTable = {
  name: 'presence_records',
  source: Prisma.sql`SELECT pr.id, pr.member_id, CONCAT_WS(' ', m.full_name, m.surname) AS member_name,
    pr.branch_id, CAST(pr.entry_time AS CHAR) AS entry_time, CAST(pr.exit_time AS CHAR) AS exit_time, pr.direction, pr.access_method, CAST(pr.created_at AS CHAR) AS created_at, CAST(pr.updated_at AS CHAR) AS updated_at
    FROM presence_logs pr LEFT JOIN members m ON m.id = pr.member_id`,
  changedAt: 'pr.updated_at',
  key: 'pr.id',
  branch: { column: 'branch_id' },
  columns: {
    id: 'bigint',
    member_id: 'int',
    member_name: 'text',
    branch_id: 'int',
    entry_time: 'instant',
    exit_time: 'instant',
    direction: 'text',
    access_method: 'text',
    created_at: 'instant',
    updated_at: 'instant',
  },
  map: (row) => ({
    id: int(row.id),
    member_id: int(row.member_id),
    member_name: text(row.member_name),
    branch_id: int(row.branch_id),
    entry_time: instant(row.entry_time, 'entry_time'),
    exit_time: instantOrNull(row.exit_time),
    direction: text(row.direction),
    access_method: text(row.access_method),
    ...timestamps(row),
  }),
};
