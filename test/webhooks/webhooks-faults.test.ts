// Webhook events survive the queue's faults: Redis restarted empty while tries wait for their
// retry, and the delivering worker killed (SIGKILL) while tries are in flight. The events are in
// PostgreSQL, so every one still arrives (each webhook-id at least once) and the ledger holds.
import type { EventStatus } from '#api/webhooks/vocabulary.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  postJson,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { environmentVariables, startProcess, type RunningProcess } from '../support/processes.js';
import { SpareRedis } from '../support/spare-redis.js';
import { syncOnce } from '../support/sync-once.js';
import { startReceiver, type Received } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { feedSettled } from '../support/feed-horizon.js';
import { startWebhookWorker } from '../support/worker.js';

const WEBHOOK_SETTINGS = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '2,2,2,2,2,2,2,2,2,2',
  WEBHOOK_DISPATCH_INTERVAL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '5000',
};

let env: TestEnvironment;
let redis: SpareRedis;
let dashboard: LegacyDashboard;
let gateway: RunningGateway;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const secrets = new Map<string, string>();
let token: string;

beforeAll(async () => {
  [env, redis] = await Promise.all([createTestEnvironment(), SpareRedis.start()]);
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  await generateLegacyData(dashboard.conn, { scale: 0.01, seed: 14 });
  await syncOnce(env);
  gateway = await startGateway(env, { ...WEBHOOK_SETTINGS });
  token = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: ['members:read', 'webhooks:manage'] }),
  );
  receiver = await startReceiver({ secrets });
});

afterAll(async () => {
  await receiver?.close();
  await gateway?.close();
  await dashboard?.close();
  await redis?.destroy();
  await env?.destroy();
});

async function subscribe(path: string): Promise<number> {
  // Its events are the test's own: none of a change already made (support/feed-horizon.ts).
  await feedSettled(gateway.db);
  const answer = await postJson(
    `${gateway.url}/api/v1/webhooks`,
    { url: receiver.url(path), types: ['members'] },
    bearer(token).headers,
  );
  expect(answer.status).toBe(201);
  secrets.set(path, answer.body.data.secret as string);
  return answer.body.data.id as number;
}

async function ledger(id: number) {
  const answer = await getJson(`${gateway.url}/api/v1/webhooks/${id}`, bearer(token));
  return answer.body.data.deliveries as {
    events: Record<'published' | EventStatus, number>;
  };
}

async function newMembers(count: number, name: string) {
  for (let i = 0; i < count; i++) {
    await dashboard.insertMember({ branch_id: 1, full_name: `${name} ${i}` });
  }
  await syncOnce(env);
}

/** Every event of the subscription arrived with a 2xx at least once, and the ledger holds. */
async function expectAllDelivered(
  id: number,
  path: string,
  count: number,
  ok: (r: Received) => boolean,
) {
  await eventually(
    async () =>
      expect((await ledger(id)).events).toEqual({
        published: count,
        delivered: count,
        failed: 0,
        pending: 0,
        cancelled: 0,
      }),
    60_000,
    500,
  );
  const received = receiver.received.filter((r) => r.path === path);
  expect(received.every((r) => r.verified)).toBe(true);
  expect(new Set(received.filter(ok).map((r) => r.id)).size).toBe(count);
}

describe('Redis restarted empty while tries wait for their retry', () => {
  it('when the delayed tries are gone with Redis, then the sweep queues them again and every event arrives', async () => {
    const worker = await startWebhookWorker(env, { ...WEBHOOK_SETTINGS, REDIS_URL: redis.url });
    try {
      const id = await subscribe('/redis');
      const failing = new Set<string>();
      receiver.answerWith((request) => {
        if (request.path !== '/redis' || !failing.has('all')) return { status: 204 };
        return { status: 500 };
      });
      failing.add('all');
      await newMembers(5, 'Redis Kaybında');
      await eventually(() => {
        const tried = new Set(
          receiver.received.filter((r) => r.path === '/redis').map((r) => r.id),
        );
        expect(tried.size).toBe(5);
      }, 20_000);
      // Every event now waits for its retry, as a delayed job in Redis: Redis loses them all.
      await redis.stop();
      await redis.start();
      const okAfter = Date.now();
      failing.clear();
      await expectAllDelivered(id, '/redis', 5, (r) => r.at >= okAfter);
    } finally {
      await worker.close();
    }
  }, 90_000);
});

describe('the delivering worker killed mid-try', () => {
  let first: RunningProcess | undefined;
  let second: RunningProcess | undefined;
  afterAll(() => {
    first?.kill();
    second?.kill();
  });

  it('when SIGKILL ends it while partners are answering, then another worker delivers every event', async () => {
    const variables = {
      ...environmentVariables(env),
      ...WEBHOOK_SETTINGS,
      WORKER_ROLES: 'webhooks',
    };
    first = startProcess('worker', variables);
    const id = await subscribe('/kill');
    // The partner is slow: every try is in flight for 3 s.
    let slow = true;
    receiver.answerWith(() => (slow ? { status: 204, delayMs: 3000 } : { status: 204 }));
    await newMembers(5, 'Öldürülen İşçi');
    await eventually(() => {
      expect(receiver.received.filter((r) => r.path === '/kill').length).toBeGreaterThan(0);
    }, 20_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const killedAt = Date.now();
    slow = false;
    second = startProcess('worker', variables);
    await expectAllDelivered(id, '/kill', 5, () => true);
    // Tries in flight at the kill were made again by the second worker (at least once).
    expect(receiver.received.some((r) => r.path === '/kill' && r.at >= killedAt)).toBe(true);
  }, 90_000);
});
