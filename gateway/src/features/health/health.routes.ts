import { Router } from 'express';
import type { RedisClient } from '#common/redis.js';
import type { ReadModelClient } from '#common/databases.js';
import { withTimeout } from '#common/with-timeout.js';

/** A load balancer's probe must get an answer within this, whatever a dependency does. */
const CHECK_TIMEOUT_MS = 1000;

type State = 'up' | 'down';

/** 'up' when the check succeeds within the bound; 'down' on failure or when it takes longer. */
export function probe(check: () => Promise<unknown>, timeoutMs = CHECK_TIMEOUT_MS): Promise<State> {
  return withTimeout(check(), timeoutMs).then(
    () => 'up' as const,
    () => 'down' as const,
  );
}

export interface HealthDeps {
  db: ReadModelClient;
  redis: RedisClient;
  /** True once the process has been asked to stop: /readyz then turns the balancer away. */
  isStopping?: () => boolean;
}

/** PostgreSQL and Redis, checked in parallel, each within the bound. */
export async function checkDependencies(
  deps: Pick<HealthDeps, 'db' | 'redis'>,
): Promise<Record<'postgresql' | 'redis', State>> {
  const [postgresql, redis] = await Promise.all([
    probe(() => deps.db.$queryRaw`SELECT 1`),
    probe(() => deps.redis.ping()),
  ]);
  return { postgresql, redis };
}

/**
 * /healthz: the process answers. /readyz: PostgreSQL and Redis answer too, checked in parallel
 * and within 1 s; a 503 names who does not. A stopping gateway is not ready either, so the
 * balancer stops sending it traffic while requests in flight finish.
 */
export function healthRoutes(deps: HealthDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const { postgresql, redis } = await checkDependencies(deps);
    const stopping = deps.isStopping?.() ?? false;
    const ready = postgresql === 'up' && redis === 'up' && !stopping;
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not ready',
      dependencies: { postgresql, redis },
      ...(stopping ? { stopping: true } : {}),
    });
  });
  return router;
}
