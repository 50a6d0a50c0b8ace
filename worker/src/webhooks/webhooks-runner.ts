// The worker's webhook part: the dispatcher (feed → events), the delivery queue's consumer and
// its sweep. Runs beside the sync, or alone in processes started with WORKER_ROLES=webhooks.
import { Cluster } from 'ioredis';
import type { CursorCodec } from '#api/changes/cursor.js';
import type { RedisClient } from '#common/redis.js';
import type pg from 'pg';
import type { Registry } from 'prom-client';
import type { Config } from '#common/config.js';
import type { throttledLog } from '#common/log-throttle.js';
import { disableEndedSubscriptions } from '#api/webhooks/credentials.js';
import { webhookSecrets } from '#api/webhooks/secrets.js';
import { pgRows } from '#read-model/sql.js';
import { changesCommittedChannel } from '../queues.js';
import { startDelivery } from './delivery.js';
import { startDispatch } from './dispatch.js';
import type { Club } from '#api/sandbox.js';
import { createSender } from '#api/webhooks/send.js';
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
  /**
   * The sandbox's feed (its read model's pool) and the prefix its sync announces commits under;
   * its clients' subscriptions follow it (docs/decisions/0024-sandbox.md).
   */
  sandbox?: { pool: pg.Pool; prefix: string } | undefined;
}

/**
 * Subscriptions whose credentials ended with time, a rotated secret's overlap running out, are
 * disabled (api/webhooks/credentials.ts); the gateway disables the others as it ends them.
 */
async function disableEnded(deps: Pick<WebhooksDeps, 'pool' | 'log'>) {
  const ended = await pgRows<{ id: number }>(deps.pool, disableEndedSubscriptions(null, 'worker'));
  if (ended.length === 0) return;
  deps.log(
    'warn',
    'webhook-credentials-ended',
    { subscriptions: ended.map((row) => row.id) },
    'webhook subscriptions disabled: the credentials that made them ended',
  );
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
    backOffMs: deps.config.backOffMs,
    timeoutMs: deps.config.timeoutMs,
    metrics: createWebhookMetrics(deps.registry, deps.pool),
    log: deps.log,
    secrets: webhookSecrets(deps.secretsKeys),
  });
  const dispatchOf = (club: Club, pool: pg.Pool) =>
    startDispatch({
      pool: deps.pool,
      feed: { club, pool },
      delivery,
      intervalMs: deps.config.dispatchIntervalMs,
      log: deps.log,
      cursors: deps.cursors,
    });
  // One dispatcher per club, each woken by its own sync's commits.
  const dispatchers = new Map([
    [changesCommittedChannel(deps.prefix), dispatchOf('live', deps.pool)],
  ]);
  if (deps.sandbox) {
    dispatchers.set(
      changesCommittedChannel(deps.sandbox.prefix),
      dispatchOf('sandbox', deps.sandbox.pool),
    );
  }
  // The sync announces each commit (queues.ts): a change followed from the binary log reaches
  // partners in about the time the log brings it, not up to an interval later. The interval
  // stays, for a Redis that drops the message or a sync that changed rows without announcing.
  // A connection of its own: one that subscribes can send nothing else.
  const wakeUps: RedisClient =
    deps.connection instanceof Cluster ? deps.connection.duplicate() : deps.connection.duplicate();
  wakeUps.on('error', (error) =>
    deps.log('warn', 'webhook-wake-ups', { err: error }, 'redis error on the wake-up channel'),
  );
  wakeUps.on('message', (channel: string) => dispatchers.get(channel)?.wake());
  wakeUps
    .subscribe(...dispatchers.keys())
    .catch((error: unknown) =>
      deps.log('warn', 'webhook-wake-ups', { err: error }, 'not woken by commits; interval only'),
    );
  const sweeping = setInterval(() => {
    delivery
      .sweep()
      .catch((error: unknown) =>
        deps.log('warn', 'webhook-sweep', { err: error }, 'sweep failed; retrying'),
      );
    disableEnded(deps).catch((error: unknown) =>
      deps.log('warn', 'webhook-credentials', { err: error }, 'credentials check failed; retrying'),
    );
  }, SWEEP_INTERVAL_MS);

  return {
    /** This process's delivery worker (a test wedges it). */
    deliveryWorker: () => delivery.worker(),
    async close() {
      clearInterval(sweeping);
      wakeUps.disconnect();
      await Promise.all([...dispatchers.values()].map((dispatch) => dispatch.close()));
      await delivery.close();
      sender.close();
    },
  };
}
