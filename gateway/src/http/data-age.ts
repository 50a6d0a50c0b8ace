import type { RequestHandler } from 'express';
import type { ReadModelClient } from '../../../common/databases.js';

/** How stale the sync times behind X-Data-Age may be: the header counts whole seconds anyway. */
const REFRESH_MS = 1000;

/**
 * X-Data-Age: whole seconds since the least recently synced table behind the answer was last
 * brought up to date. Left out while one of those tables has never been synced. The sync times
 * are read at most once a second per process (one query shared by the requests waiting for it),
 * not once per request; the age itself is computed per answer.
 */
export function dataAge(db: ReadModelClient, tables: string[]): RequestHandler {
  let oldest: { value: number | null; readAt: number } | null = null;
  let reading: Promise<number | null> | null = null;

  async function readOldest(): Promise<number | null> {
    const states = await db.syncState.findMany({
      where: { table_name: { in: tables } },
      select: { synced_at: true },
    });
    const times = states.map((s) => s.synced_at);
    if (times.length !== tables.length || !times.every((t): t is Date => t !== null)) return null;
    return Math.min(...times.map((t) => t.getTime()));
  }

  function current(now: number): Promise<number | null> | number | null {
    if (oldest && now - oldest.readAt < REFRESH_MS) return oldest.value;
    reading ??= readOldest()
      .then((value) => {
        oldest = { value, readAt: now };
        return value;
      })
      .finally(() => {
        reading = null;
      });
    return reading;
  }

  return async (_req, res, next) => {
    const time = await current(Date.now());
    if (time !== null) {
      res.set('X-Data-Age', String(Math.max(0, Math.floor((Date.now() - time) / 1000))));
    }
    next();
  };
}
