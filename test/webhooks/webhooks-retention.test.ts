// Webhook events do not grow with time: once delivered or failed for WEBHOOK_RETENTION_DAYS (here
// about 17 seconds), the worker deletes them and their tries; pending ones stay whatever their
// age. The figures of GET /webhooks/{id} and `npm run webhooks -- list` stay a ledger over what
// remains: published = delivered + failed + pending, tries by outcome as the rows hold them.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readModelPool } from '#common/databases.js';
import { throttledLog } from '#common/log-throttle.js';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import { startRetention } from '../../worker/src/retention.js';
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
import { operatorCli } from '../support/operator-cli.js';
import { runLogger } from '../support/run-logs.js';
import { syncOnce } from '../support/sync-once.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { feedSettled } from '../support/feed-horizon.js';
import { startWebhookWorker } from '../support/worker.js';

const SETTINGS = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0.2,0.2',
  WEBHOOK_DISPATCH_INTERVAL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_RETENTION_DAYS: '0.0002',
};
const RETENTION_MS = 17_280;
// Each path one subscription: one partner answers, one fails every try, one asks to wait an hour.
const ANSWERS: Record<string, { status: number; headers?: Record<string, string> }> = {
  '/delivered': { status: 204 },
  '/failed': { status: 500 },
  '/pending': { status: 429, headers: { 'retry-after': '3600' } },
};

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let gateway: RunningGateway;
let worker: Awaited<ReturnType<typeof startWebhookWorker>>;
let retention: { stop(): void };
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let token: string;

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  await generateLegacyData(dashboard.conn, { scale: 0.01, seed: 22 });
  await syncOnce(env);
  gateway = await startGateway(env, { RATE_LIMIT_PER_MINUTE: '100000', ...SETTINGS });
  token = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: ['members:read', 'webhooks:manage'] }),
  );
  receiver = await startReceiver({ secrets: new Map() });
  receiver.answerWith((request) => ANSWERS[request.path]!);
  worker = await startWebhookWorker(env, SETTINGS);
});

afterAll(async () => {
  retention?.stop();
  await worker?.close();
  await receiver?.close();
  await gateway?.close();
  await dashboard?.close();
  await env?.destroy();
});

interface Figures {
  events: { published: number; delivered: number; failed: number; pending: number };
  attempts: Record<string, number>;
}

async function figures(id: number): Promise<Figures> {
  const answer = await getJson(`${gateway.url}/api/v1/webhooks/${id}`, bearer(token));
  expect(answer.status).toBe(200);
  return answer.body.data.deliveries as Figures;
}

/** Events and tries of one subscription as PostgreSQL holds them. */
async function rows(id: number) {
  const {
    rows: [counts],
  } = await readModelPool(gateway.db).query<{
    events: number;
    tries: number;
  }>(
    `SELECT (SELECT count(*)::int FROM webhook_events WHERE subscription_id = $1) AS events,
            (SELECT count(*)::int FROM webhook_attempts WHERE subscription_id = $1) AS tries`,
    [id],
  );
  return counts!;
}

/** The ledger holds over the rows that remain. */
async function expectLedger(id: number) {
  const [figure, held] = await Promise.all([figures(id), rows(id)]);
  const { published, delivered, failed, pending } = figure.events;
  expect(published).toBe(delivered + failed + pending);
  expect(published).toBe(held.events);
  expect(Object.values(figure.attempts).reduce((sum, n) => sum + n, 0)).toBe(held.tries);
  return figure;
}

describe('webhook retention', () => {
  it('when events are delivered or failed for longer than WEBHOOK_RETENTION_DAYS, then they and their tries are deleted, pending ones stay, and the ledger holds over what remains', async () => {
    const ids: Record<string, number> = {};
    // Their events are the test's own: none of a change already made (support/feed-horizon.ts).
    await feedSettled(gateway.db);
    for (const path of Object.keys(ANSWERS)) {
      const answer = await postJson(
        `${gateway.url}/api/v1/webhooks`,
        { url: receiver.url(path), types: ['members'] },
        bearer(token).headers,
      );
      expect(answer.status).toBe(201);
      ids[path] = answer.body.data.id as number;
    }
    const config = env.config(SETTINGS);
    expect(config.webhooks.retentionMs).toBe(RETENTION_MS);
    retention = startRetention({
      pool: readModelPool(gateway.db),
      retention: {
        tokensMs: config.tokens.retentionMs,
        auditMs: config.audit.retentionMs,
        webhookEventsMs: RETENTION_MS,
        usageMs: config.usage.retentionMs,
      },
      log: throttledLog(runLogger(inject('services').runId, 'webhook-retention-test')),
    });

    for (const name of ['Saklama Bir', 'Saklama İki']) {
      await dashboard.insertMember({ branch_id: 1, full_name: name });
    }
    await syncOnce(env);
    await eventually(async () => {
      expect((await figures(ids['/delivered']!)).events).toMatchObject({ delivered: 2 });
      expect((await figures(ids['/failed']!)).events).toMatchObject({ failed: 2 });
      expect((await figures(ids['/pending']!)).events).toMatchObject({ pending: 2 });
    }, 10_000);
    const finished = Date.now();
    // Within the retention: kept, though the purge runs every couple of seconds.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    for (const path of Object.keys(ANSWERS)) {
      expect((await expectLedger(ids[path]!)).events.published).toBe(2);
    }
    expect((await rows(ids['/failed']!)).tries).toBe(6);

    await eventually(async () => {
      expect(await rows(ids['/delivered']!)).toEqual({ events: 0, tries: 0 });
      expect(await rows(ids['/failed']!)).toEqual({ events: 0, tries: 0 });
    }, RETENTION_MS + 15_000);
    expect(Date.now() - finished).toBeGreaterThan(RETENTION_MS - 2000);
    // Older than the retention too, but still owed to its partner.
    expect(await rows(ids['/pending']!)).toEqual({ events: 2, tries: 2 });

    expect(await expectLedger(ids['/delivered']!)).toMatchObject({
      events: { published: 0, delivered: 0, failed: 0, pending: 0 },
      attempts: {},
    });
    expect((await expectLedger(ids['/failed']!)).events.published).toBe(0);
    expect(await expectLedger(ids['/pending']!)).toMatchObject({
      events: { published: 2, pending: 2 },
      attempts: { http_error: 2 },
    });
    const listed = JSON.parse(await operatorCli(env, 'webhooks', 'list', '--json')) as {
      id: number;
      deliveries: Figures;
    }[];
    for (const id of Object.values(ids)) {
      const figure = await figures(id);
      expect(listed.find((row) => row.id === id)?.deliveries).toMatchObject(figure);
    }
    const deliveries = await getJson(
      `${gateway.url}/api/v1/webhooks/${ids['/failed']}/deliveries`,
      bearer(token),
    );
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.data).toEqual([]);
  }, 90_000);
});
