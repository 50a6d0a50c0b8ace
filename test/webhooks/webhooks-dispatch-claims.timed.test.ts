// A dispatcher in the middle of a page (docs/decisions/0012-webhooks.md): held there for as long
// as the test likes (it holds webhook_events against inserts), with two webhook workers running.
// The page's subscription is the one dispatcher's: the other passes it by and nothing is sent
// twice. Its row stays free: the partner edits it and gets an answer while the page is held,
// where a lock on the row would have made the edit wait for the page. And a subscription the
// release before took (its dispatchers lock the row FOR UPDATE) is passed by, as during a
// rolling upgrade (docs/decisions/0021-rolling-upgrades.md).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { syncOnce } from '../support/sync-once.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { startWebhookWorker } from '../support/worker.js';

const WEBHOOK_SETTINGS = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_DISPATCH_INTERVAL_MS: '50',
};

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let gateway: RunningGateway;
let workers: Awaited<ReturnType<typeof startWebhookWorker>>[];
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let holder: pg.Client;
let token: string;
let branchId: number;
const secrets = new Map<string, string>();

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  branchId = await dashboard.insertBranch();
  await syncOnce(env);
  gateway = await startGateway(env, WEBHOOK_SETTINGS);
  token = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: ['members:read', 'webhooks:manage'] }),
  );
  receiver = await startReceiver({ secrets });
  receiver.answerWith(() => ({ status: 204 }));
  workers = [
    await startWebhookWorker(env, WEBHOOK_SETTINGS),
    await startWebhookWorker(env, WEBHOOK_SETTINGS),
  ];
  holder = new pg.Client({ connectionString: env.databaseUrl });
  await holder.connect();
});

afterAll(async () => {
  await holder?.query('ROLLBACK').catch(() => undefined);
  await holder?.end();
  await Promise.all((workers ?? []).map((w) => w.close()));
  await receiver?.close();
  await gateway?.close();
  await dashboard?.close();
  await env?.destroy();
});

/** A subscription to members at `path` of the receiver; its id. */
async function subscribe(path: string): Promise<number> {
  const created = await postJson(
    `${gateway.url}/api/v1/webhooks`,
    { url: receiver.url(path), types: ['members'] },
    bearer(token).headers,
  );
  expect(created.status).toBe(201);
  secrets.set(path, created.body.data.secret as string);
  return created.body.data.id as number;
}

/**
 * Statements waiting for a lock the test holds: the dispatchers' pages in the middle (their feed
 * read or their insert, whichever meets the held table first).
 */
async function heldPages(): Promise<number> {
  const { rows } = await holder.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return rows[0]!.count;
}

describe('a dispatcher in the middle of a page', () => {
  it('when two dispatchers run and one holds a subscription, then the other passes it by, the partner can edit it meanwhile, and its event arrives once', async () => {
    const id = await subscribe('/held');

    await holder.query('BEGIN');
    await holder.query('LOCK TABLE webhook_events IN EXCLUSIVE MODE');
    await dashboard.insertMember({ branch_id: branchId, full_name: 'Sayfada Bekleyen' });
    await syncOnce(env);
    await eventually(async () => expect(await heldPages()).toBe(1), 10_000);

    // Forty passes of each dispatcher: the other one never takes the held subscription too.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await heldPages()).toBe(1);

    const edited = await getJson(`${gateway.url}/api/v1/webhooks/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...bearer(token).headers },
      body: JSON.stringify({ description: 'sayfa sürerken' }),
      signal: AbortSignal.timeout(5000),
    });
    expect(edited.status).toBe(200);
    expect(edited.body.data.description).toBe('sayfa sürerken');

    await holder.query('ROLLBACK');
    await eventually(() => {
      expect(receiver.received.filter((r) => r.path === '/held')).toHaveLength(1);
    }, 10_000);
    // Passes enough for a second copy, had the other dispatcher recorded the page as well.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const got = receiver.received.filter((r) => r.path === '/held');
    expect(got).toHaveLength(1);
    expect(got[0]!.verified).toBe(true);
  });

  it('when the release before holds a subscription, then no dispatcher of this one takes it, and its event arrives once after', async () => {
    const id = await subscribe('/earlier');
    const recorded = async () =>
      (
        await holder.query<{ count: number }>(
          'SELECT count(*)::int AS count FROM webhook_events WHERE subscription_id = $1',
          [id],
        )
      ).rows[0]!.count;

    await holder.query('BEGIN');
    await holder.query('SELECT id FROM webhook_subscriptions WHERE id = $1 FOR UPDATE', [id]);
    await dashboard.insertMember({ branch_id: branchId, full_name: 'Önceki Sürümde' });
    await syncOnce(env);
    // Forty passes of each dispatcher: none records the change for the held subscription, nor
    // waits for it (one that read its position would wait to record it, and record it again
    // after the release before had).
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await recorded()).toBe(0);
    expect(await heldPages()).toBe(0);
    await holder.query('COMMIT');

    await eventually(() => {
      expect(receiver.received.filter((r) => r.path === '/earlier')).toHaveLength(1);
    }, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await recorded()).toBe(1);
    expect(receiver.received.filter((r) => r.path === '/earlier')).toHaveLength(1);
  });
});
