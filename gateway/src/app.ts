// Builds the Express application: middleware order, routers, error funnel. No listen() here, so
// tests run the real app on port 0.
import express, { Router } from 'express';
import helmet from 'helmet';
import type { Redis } from 'ioredis';
import type { Config } from '../../common/config.js';
import type { ReadModelClient } from '../../common/databases.js';
import type { Logger } from '../../common/logger.js';
import { createAuthThrottle } from './features/auth/auth-throttle.js';
import { oauthRoutes } from './features/auth/auth.routes.js';
import { createClientEpochs } from './features/auth/client-epochs.js';
import { createTokenService } from './features/auth/tokens.service.js';
import { docsRoutes } from './features/docs/docs.routes.js';
import { healthRoutes } from './features/health/health.routes.js';
import { infoRoutes } from './features/info/info.routes.js';
import { ENDPOINTS } from './endpoints.js';
import { admission, createGuard } from './http/authenticate.js';
import { createDataAges } from './http/data-age.js';
import { mountEndpoints } from './http/endpoint.js';
import { errorHandler, unknownRoute } from './http/error-handler.js';
import { createGatewayMetrics, metricsRoute } from './http/metrics.js';
import { requestId } from './http/request-id.js';
import { createScopedReads } from './http/scoped-read.js';

export interface AppDeps {
  config: Config;
  db: ReadModelClient;
  redis: Redis;
  logger: Logger;
}

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('query parser', 'simple');

  const epochs = createClientEpochs(deps.redis, deps.config.redis.prefix);
  const tokens = createTokenService({ ...deps, epochs });
  const metrics = createGatewayMetrics();
  const guard = createGuard(admission({ ...deps, metrics }));
  const throttle = createAuthThrottle({
    redis: deps.redis,
    prefix: deps.config.redis.prefix,
    failedAttemptsPerMinute: deps.config.tokens.failedAttemptsPerMinute,
    onRedisFailure: deps.config.rateLimit.onRedisFailure,
  });

  app.use(requestId);
  app.use(helmet());
  app.use(healthRoutes(deps));
  app.get('/metrics', metricsRoute(metrics));
  app.use(oauthRoutes(tokens, throttle));

  const api = Router();
  api.use(express.json({ limit: '100kb' }));
  api.use(infoRoutes(ENDPOINTS));
  api.use(docsRoutes(ENDPOINTS));
  const scopedReads = createScopedReads(deps.db);
  api.use(
    mountEndpoints(ENDPOINTS, {
      guard,
      services: { tokens, throttle },
      dataAges: createDataAges(deps.db),
      scopedRead: (auth) => scopedReads(auth.dataScope),
    }),
  );
  app.use('/api/v1', api);

  app.use(unknownRoute);
  app.use(errorHandler(deps.logger));
  return app;
}
