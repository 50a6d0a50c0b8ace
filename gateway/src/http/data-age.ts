import type { RequestHandler } from 'express';
import type { ReadModelClient } from '../../../common/databases.js';

/**
 * X-Data-Age: whole seconds since the least recently synced table behind the answer was last
 * brought up to date. Left out while one of those tables has never been synced.
 */
export function dataAge(db: ReadModelClient, tables: string[]): RequestHandler {
  return async (_req, res, next) => {
    const states = await db.syncState.findMany({
      where: { table_name: { in: tables } },
      select: { synced_at: true },
    });
    const times = states.map((s) => s.synced_at);
    if (times.length === tables.length && times.every((t): t is Date => t !== null)) {
      const oldest = Math.min(...times.map((t) => t.getTime()));
      res.set('X-Data-Age', String(Math.max(0, Math.floor((Date.now() - oldest) / 1000))));
    }
    next();
  };
}
