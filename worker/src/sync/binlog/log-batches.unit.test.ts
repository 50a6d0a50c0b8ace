import type { RowsEvent } from '@vlasky/zongji';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { memberPackagesTable } from '#read-model/tables/member-packages.table.js';
import { membersTable } from '#read-model/tables/members.table.js';
import type { ChangedKeys } from './apply-changes.js';
import type { BinlogPosition } from './binlog-position.js';
import { batchApplier, collectRowKeys, mergeCommitted, tablesByLegacyName } from './log-batches.js';

const byLegacyTable = tablesByLegacyName([membersTable, memberPackagesTable]);

function rowsEvent(tableName: string, rows: unknown[]) {
  return { tableId: 7, tableMap: { 7: { tableName } }, rows } as unknown as RowsEvent & {
    rows: unknown[];
  };
}

const position = (at: number): BinlogPosition => ({
  serverId: 1n,
  file: 'log.000001',
  position: BigInt(at),
  gtid: null,
});

describe('collectRowKeys', () => {
  it('when an update names a key before and after, then both are kept', () => {
    const open: ChangedKeys = new Map();
    collectRowKeys(
      open,
      byLegacyTable,
      rowsEvent('members', [{ before: { id: 3 }, after: { id: 4 } }, { before: { id: 3 } }]),
    );
    expect([...open.get(membersTable)!]).toEqual([3, 4]);
  });

  it('when a row has no key or its table is not synced, then nothing is kept', () => {
    const open: ChangedKeys = new Map();
    collectRowKeys(open, byLegacyTable, rowsEvent('members', [{ id: null }]));
    collectRowKeys(open, byLegacyTable, rowsEvent('audit_log', [{ id: 1 }]));
    expect([...open.get(membersTable)!]).toEqual([]);
    expect(open.size).toBe(1);
  });
});

describe('mergeCommitted', () => {
  it('when a transaction names keys the batch holds, then only the new ones are counted', () => {
    const batch: ChangedKeys = new Map([[membersTable, new Set([1, 2])]]);
    const committed: ChangedKeys = new Map([
      [membersTable, new Set([2, 3])],
      [memberPackagesTable, new Set([9])],
    ]);
    expect(mergeCommitted(batch, committed)).toBe(2);
    expect([...batch.get(membersTable)!]).toEqual([1, 2, 3]);
  });
});

describe('batchApplier', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function applier() {
    const applied: { keys: number[]; position: bigint }[] = [];
    const batches = batchApplier({
      apply: (changed, at) => {
        applied.push({ keys: [...(changed.get(membersTable) ?? [])], position: at.position });
        return Promise.resolve();
      },
      applied: () => undefined,
      failed: (error) => {
        throw error;
      },
    });
    return { batches, applied };
  }

  it('when transactions commit within the batch time, then they are applied as one batch at the last position', async () => {
    const { batches, applied } = applier();
    batches.commit(position(100), new Map([[membersTable, new Set([1])]]));
    batches.commit(position(200), new Map([[membersTable, new Set([2])]]));
    expect(applied).toEqual([]);
    await vi.advanceTimersByTimeAsync(50);
    expect(applied).toEqual([{ keys: [1, 2], position: 200n }]);
    expect(batches.idle()).toBe(true);
  });

  it('when a commit touches no synced table, then its position waits a second after the last write', async () => {
    const { batches, applied } = applier();
    batches.commit(position(100), new Map());
    await vi.advanceTimersByTimeAsync(999);
    expect(applied).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(applied).toEqual([{ keys: [], position: 100n }]);
  });
});
