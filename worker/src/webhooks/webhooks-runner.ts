// The worker's webhook part: the dispatcher (feed → events), the delivery queue's consumer and
// its sweep. Runs beside the sync, or alone in processes started with WORKER_ROLES=webhooks.
import type { CursorCodec } from '../../../api/changes/cursor.js';
import type { RedisClient } from '../../../common/redis.js';
import type pg from 'pg';
import type { Registry } from 'prom-client';
import type { Config } from '../../../common/config.js';
import type { throttledLog } from '../../../common/log-throttle.js';
import { webhookSecrets } from '../../../api/webhooks/secrets.js';
import { startDelivery } from './delivery.js';
import { startDispatch } from './dispatch.js';
import { createSender } from './send.js';
import { createWebhookMetrics } from './webhook-metrics.js';

const SWEEP_INTERVAL_MS = 2000;

export interface WebhooksDeps {
  pool: pg.Pool;
  connection: RedisClient;
  prefix: string;
  config: Config['webhooks'];
  registry: Registry;
  log: ReturnType<typeof throttledLog>;
  /** Signs the events' cursors (SECRETS_KEY). */
  cursors: CursorCodec;
  /** SECRETS_KEY's keys: they open the stored signing secrets. */
  secretsKeys: readonly string[];
  /** Name servers for targets' names instead of the system's (tests). */
  dnsServers?: readonly string[];
}

export function startWebhooks(deps: WebhooksDeps) {
  const sender = createSender({
    timeoutMs: deps.config.timeoutMs,
    targets: {
      allowPrivate: deps.config.allowPrivateTargets,
      allowHttp: deps.config.allowHttp,
      dnsServers: deps.dnsServers,
    },
  });
  const delivery = startDelivery({
    pool: deps.pool,
    connection: deps.connection,
    prefix: deps.prefix,
    sender,
    retryScheduleMs: deps.config.retryScheduleMs,
    concurrency: deps.config.concurrency,
    subscriptionConcurrency: deps.config.subscriptionConcurrency,
    timeoutMs: deps.config.timeoutMs,
    metrics: createWebhookMetrics(deps.registry, deps.pool),
    log: deps.log,
    secrets: webhookSecrets(deps.secretsKeys),
  });
  const dispatch = startDispatch({
    pool: deps.pool,
    delivery,
    intervalMs: deps.config.dispatchIntervalMs,
    log: deps.log,
    cursors: deps.cursors,
  });
  const sweeping = setInterval(() => {
    delivery
      .sweep()
      .catch((error: unknown) =>
        deps.log('warn', 'webhook-sweep', { err: error }, 'sweep failed; retrying'),
      );
  }, SWEEP_INTERVAL_MS);

  return {
    async close() {
      clearInterval(sweeping);
      await dispatch.close();
      await delivery.close();
      sender.close();
    },
  };
}
