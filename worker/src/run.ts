import { createCursorCodec } from '#api/changes/cursor.js';
import { loadConfigOrExit } from '#common/config.js';
import { createReadModelClient, readModelPool } from '#common/databases.js';
import { createLegacyClient } from '#common/legacy-database.js';
import { throttledLog } from '#common/log-throttle.js';
import { createLogger } from '#common/logger.js';
import { startMetricsListener, type MetricsListener } from '#common/metrics-listener.js';
import { createRedis } from '#common/redis.js';
import { exitOnUnavailablePort, onStopSignals } from '#common/shutdown.js';
import { stopTracing } from '#common/traces.js';
import { startRetention } from './retention.js';
import { createSyncMetrics } from './sync/sync-metrics.js';
import { startSyncRunner } from './sync/sync-runner.js';
import { startUsageMerge } from './usage/usage-merge.js';
import { startWebhooks } from './webhooks/webhooks-runner.js';

const WEBHOOK_POOL_SIZE = 20;

const config = loadConfigOrExit({ needsSecretsKey: true });
const logger = createLogger({ level: config.logLevel, name: 'worker' });
if (config.secrets.development) {
  logger.warn('SECRETS_KEY is unset: using the public development key, never fit for production');
}
const log = throttledLog(logger);
const bounds = {
  queryTimeoutMs: config.sync.queryTimeoutMs,
  connectTimeoutMs: 5000,
  applicationName: 'worker',
};
const legacy = createLegacyClient(config.legacy.url, bounds);
const readModel = createReadModelClient(config.db.url, bounds);
const connection = createRedis(config.redis.url, { forWorker: true, caFile: config.redis.caFile });
connection.on('error', (error) => log('warn', 'redis', { err: error }, 'redis error'));
const metrics = createSyncMetrics(readModel);
/** Set once the worker has started: the operator's listener (below). */
const started: { listener?: MetricsListener } = {};

// Not awaited yet: the stop signals are taken over before the first job can run, so a SIGTERM
// during start-up is a graceful stop too.
const starting = config.workerRoles.has('sync')
  ? startSyncRunner({
      legacy,
      readModel,
      connection,
      prefix: config.redis.prefix,
      intervalMs: config.sync.intervalMs,
      changesRetentionMs: config.changes.retentionMs,
      reconcileIntervalMs: config.sync.reconcileIntervalMs,
      staleAfterIntervals: config.sync.staleAfterIntervals,
      source: config.sync.source,
      legacyUrl: config.legacy.url,
      logger,
      metrics,
    })
  : undefined;
// Deliveries have a pool of their own: a hundred tries at once must not wait behind the sync's
// batches, nor the sync behind them.
const webhooksPool = config.workerRoles.has('webhooks')
  ? readModelPool(createReadModelClient(config.db.url, { ...bounds, poolSize: WEBHOOK_POOL_SIZE }))
  : undefined;
const webhooks = webhooksPool
  ? startWebhooks({
      pool: webhooksPool,
      connection,
      prefix: config.redis.prefix,
      config: config.webhooks,
      registry: metrics.registry,
      log,
      cursors: createCursorCodec(config.secrets.keys),
      secretsKeys: config.secrets.keys,
    })
  : undefined;

const retention = startRetention({
  pool: readModelPool(readModel),
  retention: {
    tokensMs: config.tokens.retentionMs,
    auditMs: config.audit.retentionMs,
    webhookEventsMs: config.webhooks.retentionMs,
    usageMs: config.usage.retentionMs,
  },
  log,
});
// Every worker merges usage counts, whatever its roles: a merge is exactly once however many run.
const usageMerge = startUsageMerge({
  readModel,
  redis: connection,
  prefix: config.redis.prefix,
  intervalMs: config.usage.mergeIntervalMs,
  log,
});

onStopSignals({
  logger,
  timeoutMs: config.shutdownTimeoutMs,
  // A job cut by the deadline is safe: a run commits its rows and position in one transaction,
  // and the stalled-job check hands the job to another worker once its lock expires.
  async drain() {
    retention.stop();
    await Promise.all([
      starting?.then((runner) => runner.close()),
      webhooks?.close(),
      usageMerge.stop(),
    ]);
    await started.listener?.close();
    await Promise.allSettled([legacy.$disconnect(), readModel.$disconnect(), webhooksPool?.end()]);
    await connection.quit().catch(() => connection.disconnect());
    // The spans of the last jobs, still in the exporter's batch (docs/operations.md).
    await stopTracing();
  },
});

const runner = await starting;
// The operator's port: Prometheus scrapes /metrics, the orchestrator probes /healthz. A taken
// port (another process's METRICS_PORT on this host) ends the worker with one log line.
started.listener = await startMetricsListener({
  registry: metrics.registry,
  port: config.metrics.workerPort,
  log,
  routes: {
    '/healthz': () => {
      const stale = runner?.upkeep.staleTables() ?? [];
      // The source in use: poll while a log that cannot be followed is being made up for.
      const source = runner?.source();
      return stale.length === 0
        ? { status: 200, body: { status: 'ok', source } }
        : { status: 503, body: { status: 'stale', stale_tables: stale, source } };
    },
  },
}).catch((error: unknown) =>
  exitOnUnavailablePort(logger, 'METRICS_PORT', config.metrics.workerPort, error),
);
logger.info(
  {
    intervalMs: config.sync.intervalMs,
    source: config.sync.source,
    metricsPort: started.listener.port,
  },
  'sync worker started',
);
