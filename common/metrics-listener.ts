// A process's operator listener (METRICS_PORT): Prometheus scrapes it, never the public port, as
// proxies such as Envoy and Kong keep theirs on an admin port. Gateway and worker each serve one.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, type Registry } from 'prom-client';
import type { ThrottledLog } from './log-throttle.js';

export interface MetricsListener {
  port: number;
  /** Stops listening and ends open connections: a scraper's keep-alive must not hold it. */
  close(): Promise<void>;
}

/**
 * GET /metrics answers the registry plus the process's default metrics (CPU, memory, event
 * loop, GC); `routes` are further GET paths answered with JSON (the worker's /healthz); anything
 * else 404. Port 0 picks a free port (tests). Rejects when the port cannot be listened on.
 */
export async function startMetricsListener(options: {
  registry: Registry;
  port: number;
  log: ThrottledLog;
  routes?: Record<string, () => { status: number; body: unknown }>;
}): Promise<MetricsListener> {
  const { registry, log, routes = {} } = options;
  collectDefaultMetrics({ register: registry });
  const server = createServer((req, res) => {
    const path = req.method === 'GET' ? (req.url ?? '') : '';
    if (path === '/metrics') {
      registry.metrics().then(
        (body) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(body),
        (error: unknown) => {
          log('error', 'metrics', { err: error }, 'metrics could not be collected');
          res.writeHead(500).end();
        },
      );
    } else if (Object.hasOwn(routes, path)) {
      const { status, body } = routes[path]!();
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      return closed;
    },
  };
}
