// SyncTable names are plain strings, so the type of a table's name is kept in api/sql-table.ts:
// this keeps the two in step.
import { describe, expect, it } from 'vitest';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import { SQL_TABLES } from './sql-table.js';

describe('SQL_TABLES', () => {
  it('when compared with the synced tables, then it names each of them once', () => {
    expect([...SQL_TABLES]).toEqual(SYNC_TABLES.map((t) => t.name));
  });
});
