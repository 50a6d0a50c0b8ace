// The gateway's Prometheus metrics. One registry per app rather than prom-client's global one:
// tests run several apps in one process, and a global registry would refuse the second
// registration of each metric. They are served on the metrics listener
// (common/metrics-listener.ts), never on the public port.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ReadRouting } from './read-routing.js';

export interface GatewayMetrics {
  registry: Registry;
  /** 429s, by the window that refused the request. */
  rateLimitRejections: Counter<'window'>;
  /** Requests whose counters could not be reached in Redis, by what the gateway then did. */
  rateLimitStoreFailures: Counter<'outcome'>;
  /** Every answered request, by route template (never the raw URL) and status. */
  requestDuration: Histogram<'method' | 'route' | 'status'>;
  /** Bearer tokens read from PostgreSQL: what the per-process token cache did not answer. */
  tokenReads: Counter;
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
    tokenReads: new Counter({
      name: 'gateway_token_reads_total',
      help: 'Bearer tokens read from PostgreSQL on protected requests (token cache misses, expiries and epoch changes)',
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'Duration of answered requests, by method, route template ("unmatched" for unknown paths) and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}

/** Per read replica (DATABASE_READ_URLS): its replay lag and whether reads go to it. */
export function watchReadReplicas(metrics: GatewayMetrics, reads: ReadRouting): void {
  const labelNames = ['replica'] as const;
  new Gauge({
    name: 'gateway_read_replica_lag_seconds',
    help: 'How far each read replica is behind the primary, as last probed (+Inf: unreachable)',
    labelNames,
    registers: [metrics.registry],
    collect() {
      for (const r of reads.replicas()) this.set({ replica: r.name }, r.lagMs / 1000);
    },
  });
  new Gauge({
    name: 'gateway_read_replica_usable',
    help: '1 while reads may go to the replica (reachable, within READ_REPLICA_MAX_LAG_MS), else 0',
    labelNames,
    registers: [metrics.registry],
    collect() {
      for (const r of reads.replicas()) this.set({ replica: r.name }, r.usable ? 1 : 0);
    },
  });
}
