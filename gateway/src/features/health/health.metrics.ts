// PostgreSQL and Redis as the gateway sees them, probed at each scrape as /readyz probes them:
// an alert on them needs no traffic, where the 5xx and rate-limit failures it would otherwise
// read from come only with requests.
import { Gauge, type Registry } from 'prom-client';
import { checkDependencies, type HealthDeps } from './health.routes.js';

export function watchDependencies(registry: Registry, deps: Pick<HealthDeps, 'db' | 'redis'>) {
  new Gauge({
    name: 'gateway_dependency_up',
    help: '1 when the dependency (postgresql, redis) answered the scrape within 1 s, else 0',
    labelNames: ['dependency'],
    registers: [registry],
    async collect() {
      for (const [dependency, state] of Object.entries(await checkDependencies(deps))) {
        this.set({ dependency }, state === 'up' ? 1 : 0);
      }
    },
  });
}
