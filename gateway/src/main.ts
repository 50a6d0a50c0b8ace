import { loadConfigOrExit } from '../../common/config.js';
import { createReadModelClient } from '../../common/databases.js';
import { createLogger } from '../../common/logger.js';
import { createRedis } from '../../common/redis.js';
import { createApp } from './app.js';
import { createGatewayMetrics, startMetricsServer } from './http/metrics.js';

const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel, name: 'gateway' });
const db = createReadModelClient(config.db.url);
const redis = createRedis(config.redis.url);
redis.on('error', (error) => logger.warn({ err: error }, 'redis error'));

const metrics = createGatewayMetrics();
startMetricsServer(metrics, config.metrics.port, logger).catch((error: unknown) => {
  logger.fatal({ err: error, port: config.metrics.port }, 'metrics port unavailable');
  process.exit(1);
});

const server = createApp({ config, db, redis, logger, metrics }).listen(config.http.port, () => {
  logger.info({ port: config.http.port }, 'gateway listening');
});

async function shutdown(signal: string) {
  logger.info({ signal }, 'gateway shutting down');
  server.close();
  await Promise.allSettled([db.$disconnect(), redis.quit()]);
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
