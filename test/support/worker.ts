// Runs the real sync runner in-process against a test environment.
import { Registry } from 'prom-client';
import { createCursorCodec } from '#api/changes/cursor.js';
import { createReadModelClient, readModelPool } from '#common/databases.js';
import { createLegacyClient } from '#common/legacy-database.js';
import { throttledLog } from '#common/log-throttle.js';
import type { Logger } from '#common/logger.js';
import { inject } from 'vitest';
import { runLogger } from './run-logs.js';
import { createRedis } from '#common/redis.js';
import { startSyncRunner } from '../../worker/src/sync/sync-runner.js';
import { startWebhooks } from '../../worker/src/webhooks/webhooks-runner.js';
import type { TestEnvironment } from './environment.js';

export async function startWorker(
  env: TestEnvironment,
  options: {
    legacyUrl?: string;
    /**
     * SYNC_INTERVAL_MS's default unless a test times the sync's pace: an idle worker costs its
     * process 0.24 cores at 200 ms and 0.08 at 1,000 (a job per table per pass), on a suite bound
     * by two cores' CPU.
     */
    intervalMs?: number;
    reconcileIntervalMs?: number;
    /** Operator variables for this worker (CHANGES_RETENTION_DAYS...). */
    settings?: Record<string, string>;
  } = {},
) {
  const config = env.config(options.settings);
  // The bounds main.ts gives the worker's pools.
  const bounds = { queryTimeoutMs: config.sync.queryTimeoutMs, connectTimeoutMs: 5000 };
  const legacyUrl = options.legacyUrl ?? env.legacyReadOnlyUrl;
  const legacy = createLegacyClient(legacyUrl, bounds);
  const readModel = createReadModelClient(config.db.url, { ...bounds, poolSize: 4 });
  const connection = createRedis(config.redis.url, { forWorker: true });
  const runner = await startSyncRunner({
    legacy,
    readModel,
    connection,
    prefix: config.redis.prefix,
    intervalMs: options.intervalMs ?? config.sync.intervalMs,
    reconcileIntervalMs: options.reconcileIntervalMs ?? config.sync.reconcileIntervalMs,
    changesRetentionMs: config.changes.retentionMs,
    source: config.sync.source,
    legacyUrl,
    logger: runLogger(inject('services').runId, 'worker-test'),
  });
  return {
    runner,
    readModel,
    async close() {
      await runner.close();
      await Promise.allSettled([legacy.$disconnect(), readModel.$disconnect()]);
      connection.disconnect();
    },
  };
}

/** Polls until `check` stops throwing, or fails with its last error after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 5000,
  stepMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, stepMs));
    }
  }
}

/** The worker's webhook part (dispatch, delivery, sweep) in-process, as main.ts starts it. */
export function startWebhookWorker(
  env: TestEnvironment,
  overrides: Record<string, string>,
  options: { dnsServers?: string[]; logger?: Logger } = {},
) {
  const config = env.config(overrides);
  const readModel = createReadModelClient(config.db.url, { poolSize: 6 });
  const connection = createRedis(config.redis.url, { forWorker: true });
  const logger = options.logger ?? runLogger(inject('services').runId, 'webhooks-test');
  const registry = new Registry();
  const webhooks = startWebhooks({
    pool: readModelPool(readModel),
    connection,
    prefix: config.redis.prefix,
    config: config.webhooks,
    registry,
    log: throttledLog(logger),
    cursors: createCursorCodec(config.secrets.keys),
    secretsKeys: config.secrets.keys,
    ...(options.dnsServers ? { dnsServers: options.dnsServers } : {}),
  });
  return {
    readModel,
    /** The worker's metrics, as its /metrics port shows them. */
    registry,
    deliveryWorker: webhooks.deliveryWorker,
    async close() {
      await webhooks.close();
      await readModel.$disconnect();
      // Prisma disposes of its pool only if it made a query itself; this one may not have.
      await readModelPool(readModel)
        .end()
        .catch(() => undefined);
      connection.disconnect();
    },
  };
}
