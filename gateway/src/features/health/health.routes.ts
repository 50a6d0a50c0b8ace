import { Router } from 'express';
import type { Redis } from 'ioredis';
import type { ReadModelClient } from '../../../../common/databases.js';

/** /healthz: the process answers. /readyz: PostgreSQL and Redis answer too (503 names who not). */
export function healthRoutes(deps: { db: ReadModelClient; redis: Redis }): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const [postgresql, redis] = await Promise.all([
      deps.db.$queryRaw`SELECT 1`.then(
        () => 'up' as const,
        () => 'down' as const,
      ),
      deps.redis.ping().then(
        () => 'up' as const,
        () => 'down' as const,
      ),
    ]);
    const ready = postgresql === 'up' && redis === 'up';
    res
      .status(ready ? 200 : 503)
      .json({ status: ready ? 'ready' : 'not ready', dependencies: { postgresql, redis } });
  });
  return router;
}
