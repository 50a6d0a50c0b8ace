// Builds the Express application: middleware order, routers, error funnel. No listen() here, so
// tests run the real app on port 0.
import { withErasures } from '#api/changes/erasures.js';
import { createRecipientsRecorder, NOT_RECORDING } from '#api/recipients.js';
import express from 'express';
import { createCursorCodec } from '#api/changes/cursor.js';
import type { RedisClient } from '#common/redis.js';
import type { Config } from '#common/config.js';
import { readModelPool, type ReadModelClient } from '#common/databases.js';
import {
  createGatewayLegacyPool,
  type GatewayLegacy,
} from './features/members/legacy-connection.js';
import type { Logger } from '#common/logger.js';
import { throttledLog } from '#common/log-throttle.js';
import { createAuthThrottle, failedAttempts } from './features/auth/auth-throttle.js';
import { oauthRoutes } from './features/auth/auth.routes.js';
import { createClientSecrets } from './trust/client-secrets.js';
import { createClientEpochs } from './trust/client-epochs.js';
import { createIssueLimit } from './features/auth/issue-limit.js';
import { createTokenService } from './features/auth/tokens.service.js';
import { consoleRoutes } from './features/console/console.routes.js';
import { portalRoutes } from './features/portal/portal.routes.js';
import { docsRoutes } from './features/docs/docs.routes.js';
import { watchDependencies } from './features/health/health.metrics.js';
import { healthRoutes } from './features/health/health.routes.js';
import { infoRoutes } from './features/info/info.routes.js';
import { createMemberWrites } from './features/members/members.write.js';
import { createWebhookService } from './features/webhooks/webhooks.service.js';
import { ENDPOINTS } from './endpoints.js';
import type { PageServices } from './page-services.js';
import { admission, createGuard } from './http/authenticate.js';
import { createDataAges } from './http/data-age.js';
import { mountEndpoints, type ClubDeps, type MountDeps } from './http/endpoint.js';
import type { EndpointServices } from './endpoint-services.js';
import { createSandboxEvents, type SandboxEvents } from './features/sandbox/sandbox.events.js';
import { errorHandler, unknownRoute } from './http/error-handler.js';
import { accessLog } from './http/access-log.js';
import { corsFor } from './http/cors.js';
import { createGatewayMetrics, type GatewayMetrics } from './http/metrics.js';
import { createClientLimiter } from './http/rate-limit/client-limiter.js';
import { requestId } from './http/request-id.js';
import { securityHeaders } from './http/security-headers.js';
import { createReadRouting, type ReadRouting } from './http/read-routing.js';
import { NO_USAGE_COUNTER, type UsageCounter } from './http/usage-counter.js';
import { useTurkishValidationMessages } from './http/validation.js';

export interface AppDeps {
  config: Config;
  db: ReadModelClient;
  redis: RedisClient;
  logger: Logger;
  /**
   * The dashboard's database, for member writes only (reads come from the read model). Created
   * from LEGACY_DATABASE_URL when absent; it connects on the first write, so the gateway starts
   * and serves reads while MySQL is down.
   */
  legacy?: GatewayLegacy;
  /** True once the process is stopping (run.ts); /readyz then answers 503. */
  isStopping?: () => boolean;
  /** The registry served on METRICS_PORT (gateway/src/run.ts); a fresh one when absent. */
  metrics?: GatewayMetrics;
  /**
   * Counts requests for the usage reports and flushes them to Redis (start.ts closes it after the
   * last answer); nothing is counted when absent.
   */
  usage?: UsageCounter;
  /** Where reads go (DATABASE_READ_URLS); the primary alone when absent. */
  reads?: ReadRouting;
  /** Name servers for webhook targets' names instead of the system's (tests). */
  webhookDnsServers?: readonly string[];
  /** The sandbox's databases (docs/decisions/0024-sandbox.md); absent when SANDBOX is off. */
  sandbox?: SandboxClub;
}

/** The sandbox's read model, its generated dashboard and the reads over the former. */
export interface SandboxClub {
  db: ReadModelClient;
  legacy: GatewayLegacy;
  reads: ReadRouting;
}

/** Where the API's endpoints, its info and its documentation live. */
const API_PREFIX = '/api/v1';

/**
 * The sandbox's parts: the live club's services but for what reads or writes members' rows, which
 * the sandbox's databases serve. Nobody there is a person: nothing is recorded as received and
 * nobody is erased.
 */
function sandboxClub(
  deps: AppDeps,
  sandbox: SandboxClub,
  live: EndpointServices,
  events: SandboxEvents,
): ClubDeps<EndpointServices> {
  return {
    services: {
      ...live,
      memberWrites: createMemberWrites({ ...deps, ...sandbox }),
      changes: { ...live.changes, erasures: (_clientId, changes) => Promise.resolve(changes) },
      sandbox: events,
    },
    dataAges: createDataAges(sandbox.db),
    reads: sandbox.reads,
    recipients: NOT_RECORDING,
  };
}

/** Express as every route of the gateway needs it. */
function expressApp(config: Config): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // No hash of every body (why, with figures: docs/decisions/0007). A member carries its own
  // ETag, the version If-Match checks (features/members/member-version.ts).
  app.set('etag', false);
  // Behind a load balancer req.ip must be the client's address, or every partner shares one
  // per-IP throttle bucket; trusting X-Forwarded-For from anyone else would let it be forged.
  app.set('trust proxy', config.http.trustProxy);
  app.set('query parser', 'simple');
  return app;
}

/** The token endpoints' limits: tokens a client may obtain, failed attempts an address may make. */
function tokenLimits(deps: AppDeps) {
  const { redis, config, logger } = deps;
  return {
    issueLimit: createIssueLimit({
      redis,
      prefix: config.redis.prefix,
      perMinute: config.tokens.issuePerMinute,
      onRedisFailure: config.rateLimit.onRedisFailure,
      log: throttledLog(logger),
    }),
    throttle: createAuthThrottle({
      redis,
      prefix: config.redis.prefix,
      failedAttemptsPerMinute: config.tokens.failedAttemptsPerMinute,
      onRedisFailure: config.rateLimit.onRedisFailure,
      logger,
    }),
  };
}

/** The API's parts for each club (http/endpoint.ts ClubDeps): the live club's and the sandbox's. */
function endpointClubs(
  deps: AppDeps,
  shared: Pick<EndpointServices, 'tokens' | 'throttle' | 'webhooks' | 'usage'> & {
    reads: ReadRouting;
    legacy: GatewayLegacy;
    sandboxEvents: SandboxEvents | undefined;
  },
): MountDeps<EndpointServices>['clubs'] {
  const { reads, legacy, sandboxEvents, ...services } = shared;
  const live: EndpointServices = {
    ...services,
    memberWrites: createMemberWrites({ ...deps, legacy, reads }),
    changes: {
      ...deps.config.changes,
      cursors: createCursorCodec(deps.config.secrets.keys),
      erasures: (clientId, changes) => withErasures(readModelPool(deps.db), clientId, changes),
    },
    sandbox: undefined,
  };
  return {
    live: {
      services: live,
      dataAges: createDataAges(deps.db),
      reads,
      recipients: deps.config.recipientsRecording
        ? createRecipientsRecorder(readModelPool(deps.db))
        : NOT_RECORDING,
    },
    sandbox: deps.sandbox && sandboxEvents && sandboxClub(deps, deps.sandbox, live, sandboxEvents),
  };
}

export function createApp(deps: AppDeps): express.Express {
  useTurkishValidationMessages();
  const app = expressApp(deps.config);

  const reads =
    deps.reads ??
    createReadRouting({
      primary: deps.db,
      replicaUrls: [],
      maxLagMs: 0,
      poolOptions: {},
      redis: deps.redis,
      prefix: deps.config.redis.prefix,
      logger: deps.logger,
    });
  const epochs = createClientEpochs(deps.redis, deps.config.redis.prefix);
  // Made once here, the one composition root of the API, the console and the portal: no page or
  // routes file makes a service of its own.
  const secrets = createClientSecrets(deps.config.secrets.keys);
  const { issueLimit, throttle } = tokenLimits(deps);
  const tokens = createTokenService({ ...deps, epochs, issueLimit, secrets });
  const metrics = deps.metrics ?? createGatewayMetrics();
  watchDependencies(metrics.registry, deps);
  const guard = createGuard(admission({ ...deps, metrics }));

  // The API's and the portal's: one set of rules for a client's webhooks and usage.
  const webhooks = createWebhookService(deps.db, deps.config, {
    dnsServers: deps.webhookDnsServers,
  });
  const usage = {
    pool: readModelPool(deps.db),
    limiter: createClientLimiter(deps.redis, deps.config.redis.prefix),
    rateLimits: deps.config.rateLimit,
  };

  // Member writes and the console's erasures: the gateway's own MySQL user, one pool.
  const legacy = deps.legacy ?? createGatewayLegacyPool(deps.config.legacy.url);
  const sandboxEvents = deps.sandbox && createSandboxEvents(deps.sandbox);
  app.use(requestId);
  app.use(accessLog(deps.logger, metrics, deps.usage ?? NO_USAGE_COUNTER));
  const crossOrigin = corsFor(deps.config.http.corsOrigins);
  if (crossOrigin) app.use(crossOrigin);
  app.use(securityHeaders());
  // Paths never overlap between these groups, so the order is the one that serves the most
  // requests with the fewest layers walked: Express tries every layer in turn, and the declared
  // endpoints are nearly all of the traffic. Every route has its full path and no router is
  // mounted under a path: one costs every request a second walk and a rewrite of its URL, and
  // the access log takes a route's own path as the request's template (http/access-log.ts).
  mountEndpoints(
    app,
    ENDPOINTS,
    {
      guard,
      clubs: endpointClubs(deps, {
        tokens,
        throttle,
        webhooks,
        usage,
        reads,
        legacy,
        sandboxEvents,
      }),
    },
    API_PREFIX,
  );
  app.use(infoRoutes(ENDPOINTS, API_PREFIX), docsRoutes(ENDPOINTS, API_PREFIX));
  app.use(healthRoutes(deps));
  app.use(oauthRoutes(tokens, throttle));
  // The operator's and the partners' pages, after every API route: no API request walks their
  // layers.
  if (deps.config.console.enabled) {
    const pages: PageServices = {
      ...deps,
      sandbox: deps.sandbox?.db,
      sandboxEvents,
      epochs,
      secrets,
      webhooks,
      legacy,
      usage,
      prefix: deps.config.redis.prefix,
      secretsKeys: deps.config.secrets.keys,
      publicOrigin: deps.config.console.publicOrigin,
    };
    app.use(consoleRoutes(pages));
    app.use(portalRoutes(pages));
  }

  app.use(unknownRoute);
  app.use(failedAttempts);
  app.use(errorHandler());
  return app;
}
