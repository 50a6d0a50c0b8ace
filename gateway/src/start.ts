import type { Config } from '#common/config.js';
import {
  createReadModelClient,
  type PoolOptions,
  type ReadModelClient,
} from '#common/databases.js';
import { throttledLog } from '#common/log-throttle.js';
import type { Logger } from '#common/logger.js';
import { createRedis, type RedisClient } from '#common/redis.js';
import type express from 'express';
import { createApp, type SandboxClub } from './app.js';
import { createGatewayLegacyPool } from './features/members/legacy-connection.js';
import { createGatewayMetrics, watchReadReplicas, type GatewayMetrics } from './http/metrics.js';
import { createReadRouting } from './http/read-routing.js';
import { createUsageCounter, type UsageCounter } from './http/usage-counter.js';

export interface GatewayOptions {
  logger: Logger;
  /** Each pool's size (the read model's and each replica's); the driver's default when absent. */
  poolSize?: number;
  /** The registry served on METRICS_PORT; a fresh one when absent. */
  metrics?: GatewayMetrics;
  /** True once the process is stopping; /readyz then answers 503. */
  isStopping?: () => boolean;
  /** Name servers for webhook targets' names instead of the system's (tests). */
  webhookDnsServers?: readonly string[];
}

/** The gateway's parts, wired; what serves `app` on a port is the caller's. */
export interface Gateway {
  app: express.Express;
  db: ReadModelClient;
  redis: RedisClient;
  metrics: GatewayMetrics;
  usage: UsageCounter;
  /**
   * After the last answer: the last usage counts to Redis while it is still open, then every
   * pool and connection. A request in flight still needs them until it has answered.
   */
  close(): Promise<void>;
}

/**
 * Connections to the sandbox's databases at most: partners' tests and their quick start, never
 * the live club's share of PostgreSQL (docs/decisions/0024-sandbox.md).
 */
const SANDBOX_POOL_SIZE = 3;

/** The sandbox's read model, its generated dashboard and reads over it without replicas. */
function sandboxClub(
  config: Config,
  poolOptions: PoolOptions,
  redis: RedisClient,
  logger: Logger,
): SandboxClub {
  const db = createReadModelClient(config.sandbox.dbUrl, poolOptions);
  const reads = createReadRouting({
    primary: db,
    replicaUrls: [],
    maxLagMs: 0,
    poolOptions,
    redis,
    prefix: `${config.redis.prefix}:sandbox`,
    logger,
  });
  return { db, legacy: createGatewayLegacyPool(config.sandbox.legacyUrl), reads };
}

/**
 * The one way a gateway is put together from its configuration: the process (run.ts) and the
 * tests alike, so what a test runs is what is deployed. Nothing connects here but Redis: the
 * pools open on their first query, the dashboard's on the first member write, so the gateway
 * starts and serves what it can while a database is away.
 */
export function createGateway(config: Config, options: GatewayOptions): Gateway {
  const { logger } = options;
  const log = throttledLog(logger);
  const poolOptions = {
    poolSize: options.poolSize,
    queryTimeoutMs: config.db.queryTimeoutMs,
    connectTimeoutMs: config.db.connectTimeoutMs,
    applicationName: 'gateway',
  };
  const db = createReadModelClient(config.db.url, poolOptions);
  const redis = createRedis(config.redis.url, {
    commandTimeoutMs: config.redis.commandTimeoutMs,
    caFile: config.redis.caFile,
  });
  redis.on('error', (error) => log('warn', 'redis', { err: error }, 'redis error'));
  const reads = createReadRouting({
    primary: db,
    replicaUrls: config.db.readUrls,
    maxLagMs: config.db.replicaMaxLagMs,
    poolOptions,
    redis,
    prefix: config.redis.prefix,
    logger,
  });
  // Member writes only (LEGACY_DATABASE_URL carries the gateway's least-privilege user).
  const legacy = createGatewayLegacyPool(config.legacy.url);
  const sandbox = config.sandbox.enabled
    ? sandboxClub(config, { ...poolOptions, poolSize: SANDBOX_POOL_SIZE }, redis, logger)
    : undefined;
  const metrics = options.metrics ?? createGatewayMetrics();
  watchReadReplicas(metrics, reads);
  const usage = createUsageCounter({
    counting: config.usage.counting,
    redis,
    prefix: config.redis.prefix,
    flushIntervalMs: config.usage.flushIntervalMs,
    log,
  });
  const app = createApp({
    config,
    db,
    redis,
    logger,
    metrics,
    legacy,
    reads,
    usage,
    isStopping: options.isStopping,
    webhookDnsServers: options.webhookDnsServers,
    sandbox,
  });
  return {
    app,
    db,
    redis,
    metrics,
    usage,
    async close() {
      await usage.close();
      await Promise.allSettled([
        db.$disconnect(),
        legacy.end(),
        reads.close(),
        sandbox?.db.$disconnect(),
        sandbox?.legacy.end(),
        sandbox?.reads.close(),
        // QUIT waits for the replies still due; a Redis that does not answer is left at once.
        redis.quit().catch(() => redis.disconnect()),
      ]);
    },
  };
}
