// The webhook API the portal stands on, as a partner uses it: PATCH /webhooks/{id} keeps the
// subscription's place in the feed (the next change goes to the new URL, none skipped or sent
// twice) and checks what creation checks; POST /webhooks/{id}/test sends a signed `webhook.test`
// to a real receiver, answers its outcome, records nothing, is limited and follows the delivery
// target rules; GET /webhooks/event-types follows the caller's scopes. Another client's
// subscription is 404 everywhere. In the portal, a subscription made before the partner rotates its
// secret is disabled `credentials-ended`, said so, and enabled again on the session's credentials.
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Scope } from '#api/scopes.js';
import { createWebhookService } from '../../gateway/src/features/webhooks/webhooks.service.js';
import { TESTS_PER_MINUTE } from '../../gateway/src/features/webhooks/webhooks.test-event.js';
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
import { partnerSignedIn } from '../support/portal-session.js';
import { syncOnce } from '../support/sync-once.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { startWebhookWorker } from '../support/worker.js';

const WEBHOOK_SETTINGS = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2',
  WEBHOOK_DISPATCH_INTERVAL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
};
const SCOPES: Scope[] = ['members:read', 'webhooks:manage'];

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let gateway: RunningGateway;
/** Private targets refused, as in production. */
let strict: RunningGateway;
let worker: Awaited<ReturnType<typeof startWebhookWorker>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let branch: number;
let partner: { id: number; token: string };
let other: { id: number; token: string };
const secrets = new Map<string, string>();

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  branch = await dashboard.insertBranch();
  await syncOnce(env);
  [gateway, strict] = await Promise.all([startGateway(env, WEBHOOK_SETTINGS), startGateway(env)]);
  const clientWith = async (scopes: Scope[]) => {
    const client = await createTestClient(gateway.db, { scopes });
    return { id: client.id, token: await issueToken(gateway, client) };
  };
  partner = await clientWith(SCOPES);
  other = await clientWith(SCOPES);
  receiver = await startReceiver({ secrets });
  worker = await startWebhookWorker(env, WEBHOOK_SETTINGS);
});

afterAll(async () => {
  await worker?.close();
  await receiver?.close();
  await Promise.all([gateway?.close(), strict?.close()]);
  await dashboard?.close();
  await env?.destroy();
});

const auth = (token: string) => bearer(token).headers;
const patch = (on: RunningGateway, token: string, id: number, body: unknown) =>
  getJson(`${on.url}/api/v1/webhooks/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', ...auth(token) },
    body: JSON.stringify(body),
  });
const sendTest = (token: string, id: number, on = gateway) =>
  postJson(`${on.url}/api/v1/webhooks/${id}/test`, {}, auth(token));

/** A subscription of the partner's to the receiver's `path`, its secret registered there. */
async function subscribed(path: string, body: Record<string, unknown> = {}) {
  const answer = await postJson(
    `${gateway.url}/api/v1/webhooks`,
    { url: receiver.url(path), types: ['members'], ...body },
    auth(partner.token),
  );
  expect(answer.status).toBe(201);
  secrets.set(path, answer.body.data.secret as string);
  return answer.body.data as { id: number; secret: string; created_at: string };
}

/** A subscription stored as it is, without the checks of a request (one made before a rule). */
const stored = (clientId: number, url: string) =>
  createWebhookService(gateway.db, env.config()).create(clientId, {
    url,
    types: ['members'],
    description: null,
  });

/** A port of this host nothing listens on: one just given up. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Member ids delivered to `path`, in the order they arrived. */
const membersAt = (path: string) =>
  receiver.received
    .filter((r) => r.path === path && r.parsed.type === 'members.upsert')
    .map((r) => (r.parsed.data as { id: number }).id);

describe('PATCH /webhooks/{id}', () => {
  it('when the URL is changed between changes, then the subscription keeps its place: every change arrives once, those after at the new URL', async () => {
    const created = await subscribed('/before');
    const first = await dashboard.insertMember({ branch_id: branch, full_name: 'Önce Gelen' });
    await syncOnce(env);
    await eventually(() => expect(membersAt('/before')).toContain(first), 10_000);

    // A change recorded but perhaps not yet delivered when the URL moves: it reaches one of the
    // two, once.
    const between = await dashboard.insertMember({ branch_id: branch, full_name: 'Arada Kalan' });
    await syncOnce(env);
    const moved = await patch(gateway, partner.token, created.id, {
      url: receiver.url('/after'),
      description: 'Yeni adres',
    });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({
      id: created.id,
      url: receiver.url('/after'),
      types: ['members'],
      description: 'Yeni adres',
      created_at: created.created_at,
    });
    secrets.set('/after', created.secret);
    const after = await dashboard.insertMember({ branch_id: branch, full_name: 'Sonra Gelen' });
    await syncOnce(env);

    await eventually(() => expect(membersAt('/after')).toContain(after), 10_000);
    await eventually(async () => {
      const figures = await getJson(
        `${gateway.url}/api/v1/webhooks/${created.id}`,
        bearer(partner.token),
      );
      expect(figures.body.data.deliveries.events.pending).toBe(0);
    }, 10_000);
    const all = [...membersAt('/before'), ...membersAt('/after')];
    expect(all.sort()).toEqual([first, between, after].sort());
    expect(membersAt('/before')).not.toContain(after);
    const arrived = receiver.received.filter((r) => r.path === '/before' || r.path === '/after');
    expect(arrived.every((r) => r.verified)).toBe(true);
  });

  it('when a change breaks a rule of creation, then PATCH refuses it exactly as POST does', async () => {
    const { id } = await stored(partner.id, 'https://partner.example.com/hooks');
    const cases = [
      { url: 'http://partner.example.com/hooks' },
      { url: 'https://127.0.0.1/hooks' },
      { url: 'https://10.1.2.3/hooks' },
      { url: 'https://169.254.169.254/latest' },
      { url: 'https://[::1]/hooks' },
      { url: 'https://93.184.215.14:22/hooks' },
      { url: 'https://user:pass@93.184.215.14/hooks' },
      { url: 'not a url' },
      { url: `https://93.184.215.14/${'a'.repeat(2048)}` },
      { description: 'x'.repeat(501) },
      { types: ['unknown_type'] },
      { types: [] },
      { types: ['financial_transactions'] },
    ];
    for (const change of cases) {
      const create = await postJson(
        `${strict.url}/api/v1/webhooks`,
        { url: 'https://93.184.215.14/hooks', ...change },
        auth(partner.token),
      );
      const changed = await patch(strict, partner.token, id, change);
      expect(create.status, JSON.stringify(change)).toBeGreaterThanOrEqual(400);
      expect([changed.status, changed.body.error, changed.body.details]).toEqual([
        create.status,
        create.body.error,
        create.body.details,
      ]);
    }
    const empty = await patch(strict, partner.token, id, {});
    expect([empty.status, empty.body.error]).toEqual([400, 'VALIDATION_ERROR']);
    // Nothing was changed by the refusals.
    const now = await getJson(`${strict.url}/api/v1/webhooks/${id}`, bearer(partner.token));
    expect(now.body.data).toMatchObject({ url: 'https://partner.example.com/hooks' });
  });

  it('when the operator disabled a subscription or holds its target, then the client can neither move it nor point another there', async () => {
    const service = createWebhookService(gateway.db, env.config());
    const held = await stored(partner.id, 'https://93.184.215.14/held');
    const free = await stored(partner.id, 'https://93.184.215.14/free');
    await service.setEnabled(null, held.id, false);

    const moveHeld = await patch(gateway, partner.token, held.id, {
      url: receiver.url('/elsewhere'),
    });
    expect([moveHeld.status, moveHeld.body.error]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    const onto = await patch(gateway, partner.token, free.id, {
      url: 'https://93.184.215.14:443/held/?x=1',
    });
    expect([onto.status, onto.body.error]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    // Its description is the client's to change; its target stays where the operator held it.
    const described = await patch(gateway, partner.token, held.id, { description: 'durduruldu' });
    expect(described.status).toBe(200);
    expect(described.body.data).toMatchObject({
      url: 'https://93.184.215.14/held',
      enabled: false,
      disabled_reason: 'operator',
    });
  });

  it("when another client's subscription is named, then PATCH and test answer 404", async () => {
    const theirs = await stored(other.id, receiver.url('/theirs'));
    const changed = await patch(gateway, partner.token, theirs.id, { description: 'benim' });
    expect([changed.status, changed.body.error]).toEqual([404, 'NOT_FOUND']);
    const tested = await sendTest(partner.token, theirs.id);
    expect([tested.status, tested.body.error]).toEqual([404, 'NOT_FOUND']);
    expect(receiver.received.some((r) => r.path === '/theirs')).toBe(false);
    const unknown = await patch(gateway, partner.token, 2_000_000_000, { description: 'yok' });
    expect(unknown.status).toBe(404);
    const unchanged = await getJson(`${gateway.url}/api/v1/webhooks/${theirs.id}`, {
      ...bearer(other.token),
    });
    expect(unchanged.body.data.description).toBeNull();
  });
});

describe('POST /webhooks/{id}/test', () => {
  it('when the endpoint answers, then a signed webhook.test reaches it at once and the answer carries its outcome; nothing is recorded', async () => {
    const { id, secret } = await subscribed('/tested');
    receiver.answerWith((r) =>
      r.path === '/tested' ? { status: 200, body: '{"ok":true}' } : { status: 204 },
    );
    const answer = await sendTest(partner.token, id);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      outcome: 'delivered',
      status_code: 200,
      response: '{"ok":true}',
    });
    expect(answer.body.data.duration_ms).toBeGreaterThanOrEqual(0);

    const [arrived] = receiver.received.filter((r) => r.path === '/tested');
    expect(arrived).toBeDefined();
    expect(arrived!.id).toBe(answer.body.data.webhook_id);
    // Verified by the Standard Webhooks package, with the subscription's secret.
    const verified = new Webhook(secret).verify(arrived!.body, {
      'webhook-id': arrived!.id,
      'webhook-timestamp': arrived!.timestamp,
      'webhook-signature': arrived!.signature,
    }) as { type: string; data: { subscription_id: number } };
    expect(verified).toMatchObject({ type: 'webhook.test', data: { subscription_id: id } });
    expect(arrived!.verified).toBe(true);

    const figures = await getJson(`${gateway.url}/api/v1/webhooks/${id}`, bearer(partner.token));
    expect(figures.body.data.deliveries.events.published).toBe(0);
    const tries = await getJson(
      `${gateway.url}/api/v1/webhooks/${id}/deliveries`,
      bearer(partner.token),
    );
    expect(tries.body.data).toEqual([]);
  });

  it('when the signing secret was rotated, then the test carries both signatures and each secret verifies it', async () => {
    const { id, secret: old } = await subscribed('/rotated');
    const rotated = await postJson(
      `${gateway.url}/api/v1/webhooks/${id}/rotate-secret`,
      {},
      auth(partner.token),
    );
    const fresh = rotated.body.data.secret as string;
    expect((await sendTest(partner.token, id)).body.data.outcome).toBe('delivered');
    const arrived = receiver.received.find((r) => r.path === '/rotated')!;
    const headers = {
      'webhook-id': arrived.id,
      'webhook-timestamp': arrived.timestamp,
      'webhook-signature': arrived.signature,
    };
    for (const secret of [old, fresh]) {
      expect(() => new Webhook(secret).verify(arrived.body, headers)).not.toThrow();
    }
  });

  it("when the endpoint answers 500, then the answer tells its status and time, not its body; a 2xx's first 1,024 characters are told", async () => {
    const { id } = await subscribed('/failing');
    const page = '<h1>Bakımda</h1>' + 'x'.repeat(5000);
    let status = 500;
    receiver.answerWith((r) => (r.path === '/failing' ? { status, body: page } : { status: 204 }));
    const failed = await sendTest(partner.token, id);
    expect(failed.status).toBe(200);
    expect(failed.body.data).toMatchObject({
      outcome: 'http_error',
      status_code: 500,
      response: null,
    });
    expect(failed.body.data.duration_ms).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(failed.body)).not.toContain('Bakımda');

    status = 200;
    const delivered = await sendTest(partner.token, id);
    expect(delivered.body.data).toMatchObject({ outcome: 'delivered', status_code: 200 });
    expect(delivered.body.data.response).toMatch(/^<h1>Bakımda<\/h1>x+$/);
    expect(delivered.body.data.response).toHaveLength(1024);
  });

  it('when nothing listens on the port, then the answer says "connection refused", never the address or port', async () => {
    const port = await closedPort();
    const answer = await postJson(
      `${gateway.url}/api/v1/webhooks`,
      { url: `http://127.0.0.1:${port}/nobody`, types: ['members'] },
      auth(partner.token),
    );
    expect(answer.status).toBe(201);
    const tested = await sendTest(partner.token, answer.body.data.id as number);
    expect(tested.status).toBe(200);
    expect(tested.body.data).toMatchObject({
      outcome: 'network_error',
      status_code: null,
      response: 'connection refused',
    });
    // Nothing but the fixed words: no digit of the address or the port anywhere in the text.
    expect(tested.body.data.response).not.toMatch(/\d/);
    expect(JSON.stringify(tested.body)).not.toContain(String(port));
    // Room for the partner's subscriptions of the next cases (10 at most).
    await fetch(`${gateway.url}/api/v1/webhooks/${answer.body.data.id}`, {
      method: 'DELETE',
      headers: auth(partner.token),
    });
  });

  it('when a subscription names an address that is not public, then the test is refused as a delivery is, and nothing is sent', async () => {
    const { id } = await stored(partner.id, receiver.url('/private'));
    const answer = await sendTest(partner.token, id, strict);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ outcome: 'refused_target', status_code: null });
    expect(receiver.received.some((r) => r.path === '/private')).toBe(false);
  });

  it(`when more than ${TESTS_PER_MINUTE} tests are asked in a minute, then the next is 429 with Retry-After and is not sent`, async () => {
    const { id } = await subscribed('/limited');
    for (let i = 0; i < TESTS_PER_MINUTE; i++) {
      expect((await sendTest(partner.token, id)).status).toBe(200);
    }
    const refused = await sendTest(partner.token, id);
    expect([refused.status, refused.body.error]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(receiver.received.filter((r) => r.path === '/limited')).toHaveLength(TESTS_PER_MINUTE);
  });

  it('when the operator disabled the subscription, then its client cannot send a test to it', async () => {
    const { id } = await subscribed('/stopped');
    await createWebhookService(gateway.db, env.config()).setEnabled(null, id, false);
    const answer = await sendTest(partner.token, id);
    expect([answer.status, answer.body.error]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    expect(receiver.received.some((r) => r.path === '/stopped')).toBe(false);
  });
});

describe('GET /webhooks/event-types', () => {
  const eventTypes = async (scopes: Scope[]) => {
    const client = await createTestClient(gateway.db, { scopes: ['webhooks:manage', ...scopes] });
    const token = await issueToken(gateway, client);
    const answer = await getJson(`${gateway.url}/api/v1/webhooks/event-types`, bearer(token));
    expect(answer.status).toBe(200);
    return { token, types: answer.body.data as { type: string; scope: string; example: any }[] };
  };

  it("when the caller's scopes differ, then the list follows them, each with its events and an example body", async () => {
    expect((await eventTypes([])).types).toEqual([]);
    const { token, types } = await eventTypes(['members:read', 'market:read']);
    expect(types.map((t) => t.type)).toEqual([
      'members',
      'member_packages',
      'market_products',
      'market_categories',
    ]);
    for (const listed of types) {
      expect(listed).toMatchObject({
        // An erased member's recipients are told `members.erase` (decision 0023).
        events: [
          `${listed.type}.upsert`,
          `${listed.type}.delete`,
          ...(listed.type === 'members' ? ['members.erase'] : []),
        ],
        example: { type: `${listed.type}.upsert`, data: { type: listed.type, op: 'upsert' } },
      });
      expect(listed.example.data.data).toHaveProperty('id');
    }
    expect(types.find((t) => t.type === 'members')?.scope).toBe('members:read');

    // What it lists, the caller may subscribe to; what it leaves out, it may not.
    const subscribe = (types: string[]) =>
      postJson(
        `${gateway.url}/api/v1/webhooks`,
        { url: receiver.url('/typed'), types },
        auth(token),
      );
    expect((await subscribe(types.map((t) => t.type))).status).toBe(201);
    expect((await subscribe(['branches'])).status).toBe(403);
  });
});

describe('the portal, after the partner rotates its secret', () => {
  it('when a subscription was made before the rotation, then the portal shows it disabled credentials-ended and enables it on the new credentials', async () => {
    const client = await createTestClient(gateway.db, { scopes: SCOPES });
    const browser = await partnerSignedIn(gateway, env.redisPrefix, client);
    await browser.get('/portal/webhooks');
    const made = await browser.post('/portal/webhooks', {
      url: receiver.url('/portal-ended'),
      types: 'members',
    });
    expect(made.status).toBe(200);
    const { id } = await gateway.db.webhookSubscription.findFirstOrThrow({
      where: { client_id: client.id },
      select: { id: true },
    });

    await browser.get('/portal/credentials');
    const rotated = await browser.post('/portal/credentials/rotate-secret');
    expect(rotated.html).toContain(`Webhook subscriptions ${id} were disabled`);
    const page = await browser.get(`/portal/webhooks/${id}`);
    expect(page.html).toContain('disabled (credentials-ended)');
    expect(page.html).toContain('id="credentials-ended"');

    const enabled = await browser.post(`/portal/webhooks/${id}/enable`);
    expect(enabled.html).toContain(`<dd>enabled</dd>`);
    const [subscription, now] = await Promise.all([
      gateway.db.webhookSubscription.findUniqueOrThrow({ where: { id } }),
      gateway.db.apiClient.findUniqueOrThrow({ where: { id: client.id } }),
    ]);
    expect([subscription.credentials_generation, subscription.credentials_secret_version]).toEqual([
      now.token_generation,
      now.secret_version,
    ]);
  });
});

describe("the partner's webhook actions in the operator audit", () => {
  it('when a partner acts on its subscriptions through the API and the portal, then each action is recorded with who, through what and from where; reads are not', async () => {
    const client = await createTestClient(gateway.db, { scopes: SCOPES });
    const token = await issueToken(gateway, client);
    const made = await postJson(
      `${gateway.url}/api/v1/webhooks`,
      { url: receiver.url('/audited'), types: ['members'] },
      auth(token),
    );
    expect(made.status).toBe(201);
    const id = made.body.data.id as number;
    secrets.set('/audited', made.body.data.secret as string);
    const api = (path: string, body: unknown = {}) =>
      postJson(`${gateway.url}/api/v1/webhooks/${id}${path}`, body, auth(token));
    expect((await patch(gateway, token, id, { description: 'audited' })).status).toBe(200);
    expect((await sendTest(token, id)).status).toBe(200);
    expect((await api('/rotate-secret')).status).toBe(200);
    expect((await api('/enable')).status).toBe(200);
    expect((await api('/replay', { since: new Date(0).toISOString() })).status).toBe(202);
    await getJson(`${gateway.url}/api/v1/webhooks/${id}`, { headers: auth(token) });
    // Another client's attempt on it does nothing, and records nothing.
    expect((await patch(gateway, other.token, id, { description: 'x' })).status).toBe(404);
    const browser = await partnerSignedIn(gateway, env.redisPrefix, client);
    await browser.get(`/portal/webhooks/${id}`);
    expect((await browser.post(`/portal/webhooks/${id}/rotate-secret`)).status).toBe(200);
    const removed = await getJson(`${gateway.url}/api/v1/webhooks/${id}`, {
      method: 'DELETE',
      headers: auth(token),
    });
    expect(removed.status).toBe(200);

    const rows = await gateway.db.operatorAudit.findMany({
      where: { client_key: client.client_key, action: { startsWith: 'webhooks.' } },
      orderBy: { id: 'asc' },
    });
    expect(rows.map((r) => [r.action, r.source, r.actor, r.target])).toEqual(
      [
        ['webhooks.create', 'api'],
        ['webhooks.update', 'api'],
        ['webhooks.test', 'api'],
        ['webhooks.rotate-secret', 'api'],
        ['webhooks.enable', 'api'],
        ['webhooks.replay', 'api'],
        ['webhooks.rotate-secret', 'portal'],
        ['webhooks.delete', 'api'],
      ].map(([action, source]) => [
        action,
        source,
        `partner ${client.client_key}`,
        `subscription ${id}`,
      ]),
    );
    for (const row of rows) expect(row.address).toMatch(/127\.0\.0\.1/);
  });
});
