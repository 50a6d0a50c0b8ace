import { loadConfigOrExit } from '#common/config.js';
import { throttledLog } from '#common/log-throttle.js';
import { createLogger } from '#common/logger.js';
import { startMetricsListener, type MetricsListener } from '#common/metrics-listener.js';
import { exitOnUnavailablePort, onStopSignals } from '#common/shutdown.js';
import { stopTracing } from '#common/traces.js';
import { createWorker, processJobs } from './start.js';

const config = loadConfigOrExit({ needsSecretsKey: true });
const logger = createLogger({ level: config.logLevel, name: 'worker' });
if (config.secrets.development) {
  logger.warn('SECRETS_KEY is unset: using the public development key, never fit for production');
}
/** Set once the worker has started: the operator's listener (below). */
const started: { listener?: MetricsListener } = {};

// Not awaited yet: the stop signals are taken over before the first job can run, so a SIGTERM
// during start-up is a graceful stop too.
const starting = createWorker(config, { logger, jobs: processJobs(config) });

onStopSignals({
  logger,
  timeoutMs: config.shutdownTimeoutMs,
  async drain() {
    await (await starting).close();
    await started.listener?.close();
    // The spans of the last jobs, still in the exporter's batch (docs/operations/run.md, "Traces").
    await stopTracing();
  },
});

const { runner, registry } = await starting;
// The operator's port: Prometheus scrapes /metrics, the orchestrator probes /healthz. A taken
// port (another process's METRICS_PORT on this host) ends the worker with one log line.
started.listener = await startMetricsListener({
  registry,
  port: config.metrics.workerPort,
  log: throttledLog(logger),
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
