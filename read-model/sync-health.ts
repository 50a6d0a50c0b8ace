// How often the worker brings each table up to date, and when a table counts as stale: shared by
// the worker's sync runner, which schedules the passes, and the console's sync health page, which
// reads what the worker records here (readSyncHealth).
import type { SyncSource } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';

/** While the binary log is followed, the tables are also polled this often, as a safety net. */
export const SAFETY_NET_POLL_MS = 30_000;

/** The interval between two passes over a table under `source`. */
export const passIntervalMs = (source: SyncSource, intervalMs: number) =>
  source === 'binlog' ? Math.max(intervalMs, SAFETY_NET_POLL_MS) : intervalMs;

/**
 * A table not brought up to date for two of its intervals is stale: a running worker finishes a
 * pass within one, so a stopped worker shows within three.
 */
export const STALE_AFTER_PASSES = 2;

export function isStale(syncedAt: Date | null, now: number, passMs: number): boolean {
  return syncedAt === null || now - syncedAt.getTime() > STALE_AFTER_PASSES * passMs;
}

/** What the console's sync health page shows: each table's state, its rejects, the binary log's. */
export async function readSyncHealth(db: ReadModelClient) {
  const [tables, rejects, binlog] = await Promise.all([
    db.syncState.findMany({ orderBy: { table_name: 'asc' } }),
    db.syncReject.groupBy({
      by: ['table_name'],
      _count: { _all: true },
      _max: { last_seen_at: true },
    }),
    db.binlogPosition.findUnique({ where: { id: 1 } }),
  ]);
  const rejected = new Map(rejects.map((r) => [r.table_name, r._count._all]));
  return { tables, rejected, binlog };
}

export type SyncHealth = Awaited<ReturnType<typeof readSyncHealth>>;
