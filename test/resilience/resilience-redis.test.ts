// Redis frozen (SIGSTOP: the connection stays open, nothing answers) under requests, on a private
// server: each Redis command gives up after REDIS_COMMAND_TIMEOUT_MS, so a failing-open gateway
// serves every request quickly and a failing-closed one refuses it with 503 and Retry-After, never
// a hang (figures: docs/decisions/0006). Redis restarted empty is in resilience-worker.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  bearer,
  createTestClient,
  issueToken,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { pause } from '../support/load.js';
import { SpareRedis } from '../support/spare-redis.js';

let env: TestEnvironment;
let redis: SpareRedis;
let open: RunningGateway;
let closed: RunningGateway;
let token: string;

beforeAll(async () => {
  [env, redis] = await Promise.all([createTestEnvironment(), SpareRedis.start()]);
  [open, closed] = await Promise.all([
    startGateway(env, { REDIS_URL: redis.url, RATE_LIMIT_REDIS_FAILURE: 'open' }),
    startGateway(env, { REDIS_URL: redis.url, RATE_LIMIT_REDIS_FAILURE: 'closed' }),
  ]);
  token = await issueToken(open, await createTestClient(open.db));
});

afterAll(async () => {
  redis?.thaw();
  await Promise.all([open?.close(), closed?.close()]);
  await redis?.destroy();
  await env?.destroy();
});

async function timed(url: string) {
  const started = Date.now();
  const response = await fetch(`${url}/api/v1/members`, bearer(token));
  await response.text();
  return { status: response.status, ms: Date.now() - started, headers: response.headers };
}

describe('Redis frozen', () => {
  it('when Redis stops answering, then requests are served or refused within 3 s, never held', async () => {
    redis.freeze();
    try {
      await pause(200);
      const served = await Promise.all([1, 2, 3, 4].map(() => timed(open.url)));
      const refused = await Promise.all([1, 2, 3, 4].map(() => timed(closed.url)));
      for (const r of served) {
        expect(r.status).toBe(200);
        expect(r.ms).toBeLessThan(3000);
      }
      for (const r of refused) {
        expect(r.status).toBe(503);
        expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(r.ms).toBeLessThan(3000);
      }
    } finally {
      redis.thaw();
    }
    await expect.poll(async () => (await timed(closed.url)).status, { timeout: 10_000 }).toBe(200);
  });

  it('when Redis stops answering, then the gateway_dependency_up gauge says so, and 1 again once it answers', async () => {
    const up = async () => {
      const gauge = (await open.metrics.registry.getMetricsAsJSON()).find(
        (m) => m.name === 'gateway_dependency_up',
      );
      return Object.fromEntries(
        (gauge?.values ?? []).map((v) => [String(v.labels.dependency), v.value]),
      );
    };
    expect(await up()).toEqual({ postgresql: 1, redis: 1 });
    redis.freeze();
    try {
      expect(await up()).toEqual({ postgresql: 1, redis: 0 });
    } finally {
      redis.thaw();
    }
    await expect.poll(up, { timeout: 10_000 }).toEqual({ postgresql: 1, redis: 1 });
  });
});
