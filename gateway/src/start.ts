import type { Config } from '#common/config.js';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import { throttledLog } from '#common/log-throttle.js';
import type { Logger } from '#common/logger.js';
import { createRedis, type RedisClient } from '#common/redis.js';
import type express from 'express';
import { createApp } from './app.js';
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
        // QUIT waits for the replies still due; a Redis that does not answer is left at once.
        redis.quit().catch(() => redis.disconnect()),
      ]);
    },
  };
}
