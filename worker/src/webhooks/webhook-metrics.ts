// Webhook figures on the worker's metrics port. Per subscription only the figures an operator is
// alerted on (backlog, failing), and only while a subscription has them: the series are at most
// WEBHOOK_MAX_SUBSCRIPTIONS_PER_CLIENT per client; the rest come from the API and the CLI.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type pg from 'pg';
import type { TryResult } from '#api/webhooks/send.js';

interface SubscriptionFigures {
  id: number;
  enabled: boolean;
  /** Its pending events, and the age of the oldest in seconds (null: none). */
  count: number;
  oldest: number | null;
  /** Seconds since failing_since (null: its last try succeeded, or none was made). */
  failing: number | null;
}

export function createWebhookMetrics(registry: Registry, pool: pg.Pool) {
  const tries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Delivery tries by outcome (delivered, http_error, redirect, gone, timeout, network_error, refused_target)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: 'Duration of one delivery try, from request to answer or error',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'webhook_delivery_latency_seconds',
    help: 'From the change entering the read model to its event delivered',
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600, 86400],
    registers: [registry],
  });
  const requeued = new Counter({
    name: 'webhook_sweep_requeued_total',
    help: 'Pending events the sweep queued again, their try overdue: lost by Redis or a killed process',
    registers: [registry],
  });
  registerPendingGauges(registry, pool);
  return {
    requeued(count: number) {
      requeued.inc(count);
    },
    tried(result: TryResult, deliveredChangeAt: Date | null) {
      tries.inc({ outcome: result.outcome });
      duration.observe(result.durationMs / 1000);
      if (deliveredChangeAt) latency.observe((Date.now() - deliveredChangeAt.getTime()) / 1000);
    },
  };
}

export type WebhookMetrics = ReturnType<typeof createWebhookMetrics>;

/**
 * The pending events and failing subscriptions, read at each scrape in one statement. A scrape
 * during a PostgreSQL outage keeps the last values. Per subscription, only the enabled ones with
 * pending events or failing tries: a disabled one waits by decision (its events count in the
 * totals), and the rest are healthy.
 */
function registerPendingGauges(registry: Registry, pool: pg.Pool): void {
  let figures: SubscriptionFigures[] = [];
  const refresh = async () => {
    try {
      ({ rows: figures } = await pool.query<SubscriptionFigures>(
        `SELECT s.id, s.enabled, coalesce(p.count, 0)::int AS count, p.oldest,
                extract(epoch FROM now() - s.failing_since)::float8 AS failing
           FROM webhook_subscriptions s
           LEFT JOIN (SELECT subscription_id, count(*) AS count,
                             extract(epoch FROM now() - min(created_at))::float8 AS oldest
                        FROM webhook_events WHERE status = 'pending'
                       GROUP BY subscription_id) p ON p.subscription_id = s.id
          WHERE p.subscription_id IS NOT NULL OR s.failing_since IS NOT NULL`,
      ));
    } catch {
      // Kept as they were: the scrape still answers.
    }
  };
  // One read per scrape: prom-client collects every gauge of a scrape at once.
  let reading: Promise<void> | null = null;
  const read = () =>
    (reading ??= refresh().finally(() => {
      reading = null;
    }));
  new Gauge({
    name: 'webhook_events_pending',
    help: 'Events not yet delivered nor failed',
    registers: [registry],
    async collect() {
      await read();
      this.set(figures.reduce((sum, f) => sum + f.count, 0));
    },
  });
  new Gauge({
    name: 'webhook_oldest_pending_age_seconds',
    help: 'Age of the oldest pending event',
    registers: [registry],
    async collect() {
      await read();
      this.set(Math.max(0, ...figures.map((f) => f.oldest ?? 0)));
    },
  });
  const perSubscription = (
    name: string,
    help: string,
    value: (f: SubscriptionFigures) => number | null,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['subscription'],
      registers: [registry],
      async collect() {
        await read();
        this.reset();
        for (const f of figures.filter((s) => s.enabled)) {
          const v = value(f);
          if (v !== null) this.set({ subscription: String(f.id) }, v);
        }
      },
    });
  perSubscription(
    'webhook_subscription_pending_events',
    'Events not yet delivered nor failed, per enabled subscription that has any',
    (f) => (f.count > 0 ? f.count : null),
  );
  perSubscription(
    'webhook_subscription_oldest_pending_age_seconds',
    'Age of the oldest pending event, per enabled subscription that has any',
    (f) => f.oldest,
  );
  perSubscription(
    'webhook_subscription_failing_seconds',
    'Seconds since every try to the subscription began to fail, per enabled subscription failing',
    (f) => f.failing,
  );
}
