// How often the worker brings each table up to date, and when a table counts as stale: shared by
// the worker's sync runner, which schedules the passes, and the console's sync health page.
import type { SyncSource } from '#common/config.js';

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
