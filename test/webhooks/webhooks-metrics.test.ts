// The per-subscription webhook figures on the worker's metrics port, which the alerts on a failing
// or backed-up subscription read (ops/prometheus/alerts.yml): a subscription whose endpoint
// answers 500 shows its backlog and how long it has failed; one that is served shows neither; once
// the endpoint answers, its series go.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  bearer,
  createTestClient,
  issueToken,
  postJson,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { syncOnce } from '../support/sync-once.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { startWebhookWorker } from '../support/worker.js';

const WEBHOOK_SETTINGS = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 30 }, () => 1).join(','),
  WEBHOOK_DISPATCH_INTERVAL_MS: '50',
};

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let gateway: RunningGateway;
let worker: Awaited<ReturnType<typeof startWebhookWorker>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let token: string;

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  await generateLegacyData(dashboard.conn, { scale: 0.01, seed: 17 });
  await syncOnce(env);
  gateway = await startGateway(env, WEBHOOK_SETTINGS);
  token = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: ['members:read', 'webhooks:manage'] }),
  );
  receiver = await startReceiver({ secrets: new Map() });
  worker = await startWebhookWorker(env, WEBHOOK_SETTINGS);
});

afterAll(async () => {
  await worker?.close();
  await receiver?.close();
  await gateway?.close();
  await dashboard?.close();
  await env?.destroy();
});

async function subscribe(path: string): Promise<string> {
  const answer = await postJson(
    `${gateway.url}/api/v1/webhooks`,
    { url: receiver.url(path), types: ['members'] },
    bearer(token).headers,
  );
  expect(answer.status).toBe(201);
  return String(answer.body.data.id);
}

/** The value of each series of `name`, by its subscription label, as a scrape shows them. */
async function bySubscription(name: string): Promise<Map<string, number>> {
  const metric = (await worker.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return new Map(
    (metric?.values ?? []).map((v) => [String(v.labels.subscription), Number(v.value)]),
  );
}

describe('webhook figures per subscription', () => {
  it('when an endpoint answers 500, then its subscription shows pending events and failing seconds, and loses them once it answers', async () => {
    const down = await subscribe('/down');
    const served = await subscribe('/served');
    receiver.answerWith((r) => ({ status: r.path === '/down' ? 500 : 204 }));
    await dashboard.insertMember({ branch_id: 1, full_name: 'Metrik Deneme' });
    await syncOnce(env);

    const names = [
      'webhook_subscription_pending_events',
      'webhook_subscription_oldest_pending_age_seconds',
      'webhook_subscription_failing_seconds',
    ];
    await eventually(async () => {
      expect(receiver.received.some((r) => r.path === '/served')).toBe(true);
      const [pending, oldest, failing] = await Promise.all(names.map(bySubscription));
      expect(pending!.get(down)).toBeGreaterThanOrEqual(1);
      expect(oldest!.get(down)).toBeGreaterThanOrEqual(0);
      expect(failing!.get(down)).toBeGreaterThanOrEqual(0);
      for (const figures of [pending!, oldest!, failing!]) expect(figures.has(served)).toBe(false);
    }, 15_000);

    // A delivery clears the failing state: the next change finds the endpoint answering.
    receiver.answerWith(() => ({ status: 204 }));
    await dashboard.insertMember({ branch_id: 1, full_name: 'Metrik Sonra' });
    await syncOnce(env);
    await eventually(async () => {
      for (const name of names) expect((await bySubscription(name)).size, name).toBe(0);
    }, 15_000);
  });
});
