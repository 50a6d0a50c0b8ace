// What the rate limits do when their Redis goes away, on a Redis server this file starts, stops
// and starts again on a spare port (RATE_LIMIT_REDIS_FAILURE, docs/decisions/0004-rate-limits.md).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelClient } from '#common/databases.js';
import { createLogger } from '#common/logger.js';
import { createRedis } from '#common/redis.js';
import { createApp } from '../../gateway/src/app.js';
import { sha256 } from '../../gateway/src/trust/client-secrets.js';
import { createGatewayMetrics } from '../../gateway/src/http/metrics.js';
import { NO_USAGE_COUNTER } from '../../gateway/src/http/usage-counter.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { SpareRedis } from '../support/spare-redis.js';

let env: TestEnvironment;
let redis: SpareRedis;
let failOpen: RunningGateway;
let failClosed: RunningGateway;

beforeAll(async () => {
  env = await createTestEnvironment();
  redis = await SpareRedis.start();
  [failOpen, failClosed] = await Promise.all([
    startGateway(env, { REDIS_URL: redis.url, RATE_LIMIT_REDIS_FAILURE: 'open' }),
    startGateway(env, { REDIS_URL: redis.url, RATE_LIMIT_REDIS_FAILURE: 'closed' }),
  ]);
});

afterAll(async () => {
  await Promise.all([failOpen?.close(), failClosed?.close()]);
  await redis?.destroy();
  await env?.destroy();
});

const call = (gateway: RunningGateway, token: string) =>
  getJson(`${gateway.url}/api/v1/members?limit=1`, bearer(token));

/** Calls until a response carries counters, as a client would after an outage. */
async function untilCounted(gateway: RunningGateway, token: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const response = await call(gateway, token);
    if (response.headers.has('x-ratelimit-remaining-minute')) return response;
    if (Date.now() > deadline) throw new Error(`never counted again: ${response.status}`);
    await sleep(100);
  }
}

async function failures(gateway: RunningGateway, outcome: 'allowed' | 'refused') {
  const text = await gateway.metrics.registry.metrics();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`gateway_rate_limit_store_failures_total{outcome="${outcome}"}`));
  return Number(line?.split(' ')[1] ?? 0);
}

/**
 * A token, retried while the gateway answers 503: after the previous case restarted Redis, a
 * fail-closed gateway refuses token calls too until its client has reconnected.
 */
async function tokenOf(gateway: RunningGateway) {
  const client = await createTestClient(gateway.db);
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      return await issueToken(gateway, client);
    } catch (error) {
      if (!String(error).includes(' 503 ') || Date.now() > deadline) throw error;
      await sleep(100);
    }
  }
}

describe('Redis unreachable', () => {
  it('when failing open, then requests pass without rate-limit headers and are counted in /metrics, and counting resumes when Redis is back', async () => {
    const token = await tokenOf(failOpen);
    await untilCounted(failOpen, token);

    await redis.stop();
    const during = await call(failOpen, token);
    expect(during.status).toBe(200);
    expect(during.headers.has('x-ratelimit-remaining-minute')).toBe(false);
    expect(during.headers.has('ratelimit')).toBe(false);
    expect(await failures(failOpen, 'allowed')).toBeGreaterThanOrEqual(1);
    // Authentication goes on from PostgreSQL: another token, revoked meanwhile, is refused.
    const revoked = await issueToken(failOpen, await createTestClient(failOpen.db));
    expect((await call(failOpen, revoked)).status).toBe(200);
    await failOpen.db.apiToken.update({
      where: { access_token_hash: sha256(revoked) },
      data: { revoked_at: new Date(), revoke_reason: 'revoked' },
    });
    expect((await call(failOpen, revoked)).status).toBe(401);

    await redis.start();
    const after = await untilCounted(failOpen, token);
    expect(after.status).toBe(200);
    // The restarted server is empty (no persistence): a fresh window.
    expect(after.headers.get('x-ratelimit-remaining-minute')).toBe('59');
  });

  it('when failing closed, then requests are refused with 503 and Retry-After, and served again when Redis is back', async () => {
    const token = await tokenOf(failClosed);
    await untilCounted(failClosed, token);

    await redis.stop();
    const during = await call(failClosed, token);
    expect(during.status).toBe(503);
    expect(during.body).toMatchObject({ success: false, error: 'SERVER_ERROR', retryAfter: 5 });
    expect(during.headers.get('retry-after')).toBe('5');
    expect(await failures(failClosed, 'refused')).toBeGreaterThanOrEqual(1);

    await redis.start();
    const after = await untilCounted(failClosed, token);
    expect(after.status).toBe(200);
  });

  it('when the gateway starts before its Redis answers, then it counts requests as soon as Redis is up', async () => {
    // As main.ts does: the app is built while the client is still connecting (startGateway waits
    // for the connection, so this case builds the app itself).
    // Tokens live in PostgreSQL: one issued by another instance works on this one.
    const token = await tokenOf(failOpen);
    await redis.stop();
    const config = env.config({ REDIS_URL: redis.url, RATE_LIMIT_REDIS_FAILURE: 'open' });
    const db = createReadModelClient(config.db.url, { poolSize: 2 });
    const client = createRedis(config.redis.url);
    client.on('error', () => undefined);
    const app = createApp({
      config,
      db,
      redis: client,
      logger: createLogger({ level: 'silent', name: 't' }),
    });
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const early: RunningGateway = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      db,
      redis: client,
      app,
      metrics: createGatewayMetrics(),
      usage: NO_USAGE_COUNTER,
      close: () => Promise.resolve(),
    };
    try {
      expect((await call(early, token)).headers.has('x-ratelimit-remaining-minute')).toBe(false);
      await redis.start();
      const counted = await untilCounted(early, token);
      expect(counted.headers.get('x-ratelimit-remaining-minute')).toBe('59');
    } finally {
      await new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      client.disconnect();
      await db.$disconnect();
    }
  });
});
