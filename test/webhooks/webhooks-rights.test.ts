// Webhook events follow the client's rights as they are when each is sent, not as they were when
// it was recorded: a real gateway, worker and partner server. Each case records events while the
// client holds its rights (some delivered, some held back by the partner answering 503), has them
// replayed while the operator holds the subscription, takes a right away, and lets delivery run:
// no event of the lost right reaches the partner, neither replayed nor held, and the figures (API
// and CLI) count them cancelled, while the events the client may still receive arrive. A client
// disabled or without webhooks:manage has nothing recorded meanwhile: once given its right back,
// it receives the changes made in between.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '#api/scopes.js';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import { deliveryFigures } from '../../gateway/src/features/webhooks/webhooks.figures.js';
import { createWebhookService } from '../../gateway/src/features/webhooks/webhooks.service.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  postJson,
  startGateway,
  type RunningGateway,
  type TestClient,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { operatorCli } from '../support/operator-cli.js';
import { syncOnce } from '../support/sync-once.js';
import { startReceiver, type Received } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { startWebhookWorker } from '../support/worker.js';

const WEBHOOK_SETTINGS = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 30 }, () => 1).join(','),
  WEBHOOK_DISPATCH_INTERVAL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
};

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let gateway: RunningGateway;
let worker: Awaited<ReturnType<typeof startWebhookWorker>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const secrets = new Map<string, string>();
/** A case's time: the operator's commands are processes of their own, slow on a busy machine. */
const CASE_MS = 180_000;
/** Paths whose partner is down for now (503). */
const failing = new Set<string>();

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  await generateLegacyData(dashboard.conn, { scale: 0.01, seed: 21 });
  await syncOnce(env);
  gateway = await startGateway(env, { RATE_LIMIT_PER_MINUTE: '100000', ...WEBHOOK_SETTINGS });
  receiver = await startReceiver({ secrets });
  receiver.answerWith((request) => ({ status: failing.has(request.path) ? 503 : 204 }));
  worker = await startWebhookWorker(env, WEBHOOK_SETTINGS);
});

afterAll(async () => {
  await worker?.close();
  await receiver?.close();
  await gateway?.close();
  await dashboard?.close();
  await env?.destroy();
});

const webhooksCli = (...args: string[]) => operatorCli(env, 'webhooks', ...args);
const clientsCli = (...args: string[]) => operatorCli(env, 'clients', ...args);

interface Change {
  type: string;
  id: number;
  branch_id: number | null;
}
const changeOf = (event: Received) => event.parsed.data as Change;
const keyOf = (change: Change) => `${change.type}:${change.id}`;

/** The legacy changes of one phase: the rows written, as the feed names them. */
type Phase = () => Promise<Change[]>;

const member = async (branchId: number): Promise<Change> => ({
  type: 'members',
  id: await dashboard.insertMember({ branch_id: branchId, full_name: 'Hak Sınaması' }),
  branch_id: branchId,
});
const notification = async (): Promise<Change> => ({
  type: 'notifications',
  id: await dashboard.insertNotification({ branch_id: null, title: 'Hak sınaması' }),
  branch_id: null,
});

interface Case {
  path: string;
  scopes: Scope[];
  types: string[];
  /** The rows of each phase (called twice: delivered first, then held back). */
  changes: Phase;
  /** Takes the right away, from outside as an operator would. */
  lose: (client: TestClient) => Promise<unknown>;
  /** Whether the client may still receive the event of `change` afterwards. */
  kept: (change: Change) => boolean;
}

/**
 * Runs one case through: events delivered, then held back by a 503; the operator disables the
 * subscription and the partner replays; the right is lost; the partner is back and the operator
 * enables. Returns what reached the partner afterwards and the figures once nothing is pending.
 */
async function run(c: Case) {
  const client = await createTestClient(gateway.db, { scopes: c.scopes });
  const token = await issueToken(gateway, client);
  const since = new Date(Date.now() - 1000).toISOString();
  const created = await postJson(
    `${gateway.url}/api/v1/webhooks`,
    { url: receiver.url(c.path), types: c.types },
    bearer(token).headers,
  );
  expect(created.status).toBe(201);
  secrets.set(c.path, created.body.data.secret as string);
  const id = created.body.data.id as number;
  const at = (path: string) => receiver.received.filter((r) => r.path === path);

  // Delivered while the client holds its rights: what replay will send again.
  const delivered = await c.changes();
  await syncOnce(env);
  await eventually(() => {
    const seen = new Set(at(c.path).map((r) => keyOf(changeOf(r))));
    expect(delivered.filter((change) => !seen.has(keyOf(change)))).toEqual([]);
  }, 60_000);
  // Held back: recorded and tried, not delivered.
  failing.add(c.path);
  const held = await c.changes();
  await syncOnce(env);
  await eventually(() => {
    const seen = new Set(at(c.path).map((r) => keyOf(changeOf(r))));
    expect(held.filter((change) => !seen.has(keyOf(change)))).toEqual([]);
  }, 60_000);

  // The operator holds the subscription while the partner asks for a replay of everything.
  const operator = createWebhookService(gateway.db, env.config());
  await operator.setEnabled(null, id, false);
  const replay = await postJson(
    `${gateway.url}/api/v1/webhooks/${id}/replay`,
    { since },
    bearer(token).headers,
  );
  expect([replay.status, replay.body.data?.replayed]).toEqual([202, delivered.length]);

  await c.lose(client);
  const mark = receiver.received.length;
  failing.delete(c.path);
  await operator.setEnabled(null, id, true);
  const settled = await eventually(async () => {
    const figures = await deliveryFigures(gateway.db, id);
    expect(figures.events.pending).toBe(0);
    return figures;
  }, 60_000);
  const after = receiver.received.slice(mark).filter((r) => r.path === c.path);
  return { id, client, token, all: [...delivered, ...held], after, figures: settled };
}

const cliFigures = async (id: number) => {
  const listed = JSON.parse(await webhooksCli('list', '--json')) as {
    id: number;
    deliveries: { events: Record<string, number> };
  }[];
  return listed.find((row) => row.id === id)!.deliveries.events;
};

describe('events follow the rights of the client when they are sent', () => {
  it.each([
    {
      right: 'the client is disabled',
      scopes: ['members:read', 'webhooks:manage'],
      types: ['members'],
      changes: async () => [await member(1)],
      lose: (client: TestClient) => clientsCli('disable', client.client_key),
      kept: () => false,
      regain: (client: TestClient) => clientsCli('enable', client.client_key),
    },
    {
      right: 'webhooks:manage is taken away',
      scopes: ['members:read', 'webhooks:manage'],
      types: ['members'],
      changes: async () => [await member(1)],
      lose: (client: TestClient) => clientsCli('set-scopes', client.client_key, 'members:read'),
      kept: () => false,
      regain: (client: TestClient) =>
        clientsCli('set-scopes', client.client_key, 'members:read,webhooks:manage'),
    },
  ] satisfies (Omit<Case, 'path'> & {
    right: string;
    scopes: Scope[];
    regain: (client: TestClient) => Promise<unknown>;
  })[])(
    'when $right, then none of its events is sent or replayed, and each counts as cancelled; the changes made meanwhile arrive once it is given back',
    async ({ right, regain, ...rest }) => {
      const path = `/${right.replace(/\W+/g, '-')}`;
      const { id, client, all, after, figures } = await run({ path, ...rest });

      expect(after.map((r) => keyOf(changeOf(r)))).toEqual([]);
      const expected = {
        published: all.length,
        delivered: 0,
        failed: 0,
        pending: 0,
        cancelled: all.length,
      };
      expect(figures.events).toEqual(expected);
      expect(await cliFigures(id)).toEqual(expected);

      // Meanwhile the subscription keeps its place in the feed, as a disabled one does: what
      // changes before the right is given back arrives after.
      const meanwhile = await member(1);
      await syncOnce(env);
      await regain(client);
      await eventually(() => {
        const arrived = receiver.received.filter((r) => r.path === path).map(changeOf);
        expect(arrived.map(keyOf)).toContain(keyOf(meanwhile));
      }, 60_000);
    },
    CASE_MS,
  );

  it.each([
    {
      right: "a type's read scope is taken away",
      scopes: ['members:read', 'notifications:read', 'webhooks:manage'],
      types: ['members', 'notifications'],
      changes: async () => [await member(1), await notification()],
      lose: (client: TestClient) =>
        clientsCli('set-scopes', client.client_key, 'members:read,webhooks:manage'),
      kept: (change: Change) => change.type === 'members',
    },
    {
      right: 'the client is bound to another branch',
      scopes: ['members:read', 'webhooks:manage'],
      types: ['members'],
      changes: async () => [await member(1), await member(2)],
      // No command binds an existing client: the row is changed as a migration of clients would.
      lose: async (client: TestClient) => {
        await gateway.db.apiClient.update({ where: { id: client.id }, data: { branch_id: 2 } });
      },
      kept: (change: Change) => change.branch_id === 2,
    },
  ] satisfies (Omit<Case, 'path'> & { right: string; scopes: Scope[] })[])(
    'when $right, then only the events it still allows are sent or replayed; the others count as cancelled',
    async ({ right, ...rest }) => {
      const path = `/${right.replace(/\W+/g, '-')}`;
      const { id, token, all, after, figures } = await run({ path, ...rest });

      const kept = all.filter(rest.kept).map(keyOf).sort();
      const lost = all.filter((change) => !rest.kept(change));
      expect(lost.length).toBeGreaterThan(0);
      // Each event the client may still receive arrives once more (replayed, or no longer held);
      // none of the others.
      expect(after.map((r) => keyOf(changeOf(r))).sort()).toEqual(kept);
      const expected = {
        published: all.length,
        delivered: kept.length,
        failed: 0,
        pending: 0,
        cancelled: lost.length,
      };
      expect(figures.events).toEqual(expected);
      const answer = await getJson(`${gateway.url}/api/v1/webhooks/${id}`, bearer(token));
      expect(answer.body.data.deliveries.events).toEqual(expected);
      expect(await cliFigures(id)).toEqual(expected);

      // A cancelled event is never replayed.
      const again = await postJson(
        `${gateway.url}/api/v1/webhooks/${id}/replay`,
        { since: new Date(0).toISOString() },
        bearer(token).headers,
      );
      expect(again.body.data.replayed).toBe(kept.length);
    },
    CASE_MS,
  );
});
