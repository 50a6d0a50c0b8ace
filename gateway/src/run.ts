import type { AddressInfo } from 'node:net';
import { loadConfigOrExit } from '#common/config.js';
import { throttledLog } from '#common/log-throttle.js';
import { createLogger } from '#common/logger.js';
import { startMetricsListener } from '#common/metrics-listener.js';
import { exitOnUnavailablePort, onStopSignals } from '#common/shutdown.js';
import { stopTracing } from '#common/traces.js';
import { createGatewayServer } from './http/server.js';
import { createGateway } from './start.js';

const config = loadConfigOrExit({ needsSecretsKey: true });
const logger = createLogger({ level: config.logLevel, name: 'gateway', batched: true });
if (config.secrets.development) {
  logger.warn('SECRETS_KEY is unset: using the public development key, never fit for production');
}
const log = throttledLog(logger);
// Set when a stop signal arrives: /readyz answers 503 from then on.
let stopping = false;
const gateway = createGateway(config, { logger, isStopping: () => stopping });

const metricsListener = startMetricsListener({
  registry: gateway.metrics.registry,
  port: config.metrics.port,
  log,
}).then(
  (listener) => {
    logger.info({ port: listener.port }, 'metrics listening');
    return listener;
  },
  (error: unknown) => exitOnUnavailablePort(logger, 'METRICS_PORT', config.metrics.port, error),
);

const server = createGatewayServer(gateway.app, config.http);
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
    // Only now: a request in flight still needs its pool and Redis until it has answered.
    await gateway.close();
    // The spans of the last requests, still in the exporter's batch (docs/operations/run.md,
    // "Traces").
    await stopTracing();
    // Metrics last, so a scrape can still see the drain; a scraper's keep-alive must not hold it.
    await (await metricsListener).close();
  },
});
