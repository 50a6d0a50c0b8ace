// Webhook figures on the worker's metrics port. No label per subscription (their number is not
// bounded); per-subscription figures come from the API and the operator CLI.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type pg from 'pg';
import type { TryResult } from '../../../api/webhooks/send.js';

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
  // Read at each scrape; a scrape during a PostgreSQL outage keeps the last values.
  let pending = { count: 0, oldestSeconds: 0 };
  const refresh = async () => {
    try {
      const { rows } = await pool.query<{ count: string; oldest: number | null }>(
        `SELECT count(*)::text AS count,
                extract(epoch FROM now() - min(created_at))::float8 AS oldest
           FROM webhook_events WHERE status = 'pending'`,
      );
      pending = { count: Number(rows[0]?.count ?? 0), oldestSeconds: rows[0]?.oldest ?? 0 };
    } catch {
      // Kept as they were: the scrape still answers.
    }
  };
  new Gauge({
    name: 'webhook_events_pending',
    help: 'Events not yet delivered nor failed',
    registers: [registry],
    async collect() {
      await refresh();
      this.set(pending.count);
    },
  });
  new Gauge({
    name: 'webhook_oldest_pending_age_seconds',
    help: 'Age of the oldest pending event',
    registers: [registry],
    collect() {
      this.set(pending.oldestSeconds);
    },
  });
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
