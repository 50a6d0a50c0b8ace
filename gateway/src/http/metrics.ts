// The gateway's Prometheus metrics, served at GET /metrics. One registry per app rather than
// prom-client's global one: tests run several apps in one process, and a global registry would
// refuse the second registration of each metric.
import type { RequestHandler } from 'express';
import { Counter, Registry } from 'prom-client';

export interface GatewayMetrics {
  registry: Registry;
  /** 429s, by the window that refused the request. */
  rateLimitRejections: Counter<'window'>;
  /** Requests whose counters could not be reached in Redis, by what the gateway then did. */
  rateLimitStoreFailures: Counter<'outcome'>;
}

export function createGatewayMetrics(): GatewayMetrics {
  const registry = new Registry();
  return {
    registry,
    rateLimitRejections: new Counter({
      name: 'gateway_rate_limit_rejections_total',
      help: 'Requests refused with 429, by the window that refused them',
      labelNames: ['window'],
      registers: [registry],
    }),
    rateLimitStoreFailures: new Counter({
      name: 'gateway_rate_limit_store_failures_total',
      help: 'Requests whose rate-limit counters Redis could not serve; outcome "allowed" (fail open) or "refused" (fail closed)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
  };
}

export function metricsRoute(metrics: GatewayMetrics): RequestHandler {
  return async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  };
}
