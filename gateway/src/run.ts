import type { AddressInfo } from 'node:net';
import { loadConfigOrExit } from '#common/config.js';
import { createReadModelClient } from '#common/databases.js';
import { throttledLog } from '#common/log-throttle.js';
import { createLogger } from '#common/logger.js';
import { startMetricsListener } from '#common/metrics-listener.js';
import { createRedis } from '#common/redis.js';
import { exitOnUnavailablePort, onStopSignals } from '#common/shutdown.js';
import { stopTracing } from '#common/traces.js';
import { createApp } from './app.js';
import { createGatewayLegacyPool } from './features/members/legacy-connection.js';
import { createGatewayMetrics, watchReadReplicas } from './http/metrics.js';
import { createReadRouting } from './http/read-routing.js';
import { createGatewayServer } from './http/server.js';
import { createUsageCounter } from './http/usage-counter.js';

const config = loadConfigOrExit({ needsSecretsKey: true });
const logger = createLogger({ level: config.logLevel, name: 'gateway', batched: true });
if (config.secrets.development) {
  logger.warn('SECRETS_KEY is unset: using the public development key, never fit for production');
}
const log = throttledLog(logger);
const poolOptions = {
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
// Member writes only; connects on the first write (LEGACY_DATABASE_URL carries the gateway's user).
const legacy = createGatewayLegacyPool(config.legacy.url);

const metrics = createGatewayMetrics();
watchReadReplicas(metrics, reads);
const metricsListener = startMetricsListener({
  registry: metrics.registry,
  port: config.metrics.port,
  log,
}).then(
  (listener) => {
    logger.info({ port: listener.port }, 'metrics listening');
    return listener;
  },
  (error: unknown) => exitOnUnavailablePort(logger, 'METRICS_PORT', config.metrics.port, error),
);

const usage = createUsageCounter({
  counting: config.usage.counting,
  redis,
  prefix: config.redis.prefix,
  flushIntervalMs: config.usage.flushIntervalMs,
  log,
});

let stopping = false;
const app = createApp({
  config,
  db,
  redis,
  logger,
  metrics,
  legacy,
  reads,
  usage,
  isStopping: () => stopping,
});
const server = createGatewayServer(app, config.http);
// A failed listen (a taken port) ends the process with one line naming the variable.
server.once('error', (error) => exitOnUnavailablePort(logger, 'PORT', config.http.port, error));
server.listen(config.http.port, () => {
  logger.info({ port: (server.address() as AddressInfo).port }, 'gateway listening');
});

/** Resolves once every request accepted before the stop has been answered. */
function closeServer(): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // close() ends idle keep-alive connections once; a connection whose request finishes later
  // becomes idle afterwards and would keep the server open, so idle ones are ended until done.
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  return closed.finally(() => clearInterval(sweep));
}

onStopSignals({
  logger,
  timeoutMs: config.shutdownTimeoutMs,
  async drain() {
    stopping = true;
    await closeServer();
    // The last answers' counts, while Redis is still open.
    await usage.close();
    // Only now: a request in flight still needs its pool and Redis until it has answered.
    await Promise.allSettled([db.$disconnect(), legacy.end(), redis.quit(), reads.close()]);
    // The spans of the last requests, still in the exporter's batch (docs/operations.md).
    await stopTracing();
    // Metrics last, so a scrape can still see the drain; a scraper's keep-alive must not hold it.
    await (await metricsListener).close();
  },
});
