import { createServer } from 'node:http';
import { loadConfigOrExit } from '../../common/config.js';
import { createLegacyClient, createReadModelClient } from '../../common/databases.js';
import { createLogger } from '../../common/logger.js';
import { createRedis } from '../../common/redis.js';
import { createSyncMetrics } from './sync/sync-metrics.js';
import { startSyncRunner } from './sync/sync-runner.js';

const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel, name: 'worker' });
const legacy = createLegacyClient(config.legacy.url);
const readModel = createReadModelClient(config.db.url);
const connection = createRedis(config.redis.url, { forWorker: true });
connection.on('error', (error) => logger.warn({ err: error }, 'redis error'));
const metrics = createSyncMetrics(readModel);

const runner = await startSyncRunner({
  legacy,
  readModel,
  connection,
  prefix: config.redis.prefix,
  intervalMs: config.sync.intervalMs,
  reconcileIntervalMs: config.sync.reconcileIntervalMs,
  logger,
  metrics,
});
logger.info({ intervalMs: config.sync.intervalMs }, 'sync worker started');

const metricsServer = createServer((req, res) => {
  if (req.url === '/metrics') {
    metrics.registry.metrics().then(
      (body) => res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(body),
      () => res.writeHead(500).end(),
    );
  } else {
    res.writeHead(404).end();
  }
}).listen(config.metrics.workerPort);

async function shutdown(signal: string) {
  logger.info({ signal }, 'worker shutting down');
  metricsServer.close();
  await runner.close();
  await Promise.allSettled([legacy.$disconnect(), readModel.$disconnect(), connection.quit()]);
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
