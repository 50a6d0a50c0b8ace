// The sync's commits wake the webhook dispatcher (docs/decisions/0012-webhooks.md): with its
// interval set far beyond the test, a change the poll or the binary log brings still reaches the
// partner about as soon as the read model has it. The sync and the webhook worker run apart, as
// with WORKER_ROLES, and meet only in Redis.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestEnvironment,
  SYNC_SOURCES,
  type TestEnvironment,
} from '../support/environment.js';
import {
  bearer,
  createTestClient,
  issueToken,
  postJson,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { startWebhookWorker, startWorker } from '../support/worker.js';

const WEBHOOK_SETTINGS = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  // Ten minutes: only a wake-up can start a pass within the test.
  WEBHOOK_DISPATCH_INTERVAL_MS: '600000',
};

describe.each(SYNC_SOURCES)('with SYNC_SOURCE=%s', (source) => {
  let env: TestEnvironment;
  let dashboard: LegacyDashboard;
  let gateway: RunningGateway;
  let sync: Awaited<ReturnType<typeof startWorker>>;
  let webhooks: Awaited<ReturnType<typeof startWebhookWorker>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const secrets = new Map<string, string>();
  let branchId: number;

  beforeAll(async () => {
    env = await createTestEnvironment({ syncSource: source });
    dashboard = await LegacyDashboard.connect(env.legacyUrl);
    branchId = await dashboard.insertBranch({ name: 'Moda' });
    gateway = await startGateway(env, WEBHOOK_SETTINGS);
    sync = await startWorker(env);
    webhooks = await startWebhookWorker(env, WEBHOOK_SETTINGS);
    receiver = await startReceiver({ secrets });
    const token = await issueToken(
      gateway,
      await createTestClient(gateway.db, { scopes: ['members:read', 'webhooks:manage'] }),
    );
    const answer = await postJson(
      `${gateway.url}/api/v1/webhooks`,
      { url: receiver.url('/woken'), types: ['members'] },
      bearer(token).headers,
    );
    expect(answer.status).toBe(201);
    secrets.set('/woken', answer.body.data.secret as string);
  });

  afterAll(async () => {
    await webhooks?.close();
    await sync?.close();
    await receiver?.close();
    await gateway?.close();
    await dashboard?.close();
    await env?.destroy();
  });

  it('when the dashboard inserts a member, then its webhook arrives within 2 s of the read model taking it, though the dispatch interval is 10 minutes', async () => {
    const memberId = await dashboard.insertMember({ branch_id: branchId, full_name: 'Uyandıran' });
    const event = await eventually(() => {
      const found = receiver.received.find(
        (received) => (received.parsed.data as { id: number }).id === memberId,
      );
      expect(found).toBeDefined();
      return found!;
    }, 15_000);
    expect(event.verified).toBe(true);
    const change = event.parsed.data as { op: string; changed_at: string };
    expect(change.op).toBe('upsert');
    const ms = event.at - Date.parse(change.changed_at);
    console.log(`${source}: read model → webhook received ${ms} ms`);
    expect(ms).toBeLessThan(2000);
  });

  it('when a transaction older than the change is still open as the sync announces it, then the webhook arrives once that transaction ends, not at the next interval', async () => {
    // An older transaction on the same server hides every later one from the feed.
    const holder = new pg.Client({ connectionString: env.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_current_xact_id()');
      const memberId = await dashboard.insertMember({ branch_id: branchId, full_name: 'Bekleyen' });
      await eventually(async () => {
        const rows = await gateway.db.$queryRaw<
          unknown[]
        >`SELECT 1 FROM members WHERE id = ${memberId}`;
        expect(rows).toHaveLength(1);
      }, 15_000);
      const arrived = () =>
        receiver.received.some(
          (received) => (received.parsed.data as { id: number }).id === memberId,
        );
      expect(arrived()).toBe(false);
      await holder.query('COMMIT');
      const endedAt = Date.now();
      await eventually(() => expect(arrived()).toBe(true), 15_000);
      expect(Date.now() - endedAt).toBeLessThan(2000);
    } finally {
      await holder.end();
    }
  });
});
