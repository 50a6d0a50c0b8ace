// Webhooks as a partner receives them: a real HTTP server subscribes through the API, checks
// every delivery with the Standard Webhooks package and with svix, and keeps a copy that ends
// equal to the list endpoints; a bound client's subscription never carries another branch's
// row; targets and types are checked at subscribe time; a redirect fails, a 410 disables; the
// operator's rotate-secret, revoke-tokens and disable (`npm run clients`) disable the
// subscriptions the ended credentials made (`credentials-ended`) until their partner enables them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import { signedHeaders } from '#api/webhooks/signing.js';
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
import { isSignedCursor, payloadOf } from '../support/cursors.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { operatorCli } from '../support/operator-cli.js';
import { expectCopyEqualsLists, listed, READ_SCOPES } from '../support/partner-copy.js';
import { reconcileOnce, syncOnce } from '../support/sync-once.js';
import { startReceiver, type Received } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { startWebhookWorker } from '../support/worker.js';

const WEBHOOK_SETTINGS = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2',
  WEBHOOK_DISPATCH_INTERVAL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
};
const BOUND_BRANCH = 1;

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let gateway: RunningGateway;
let strictGateway: RunningGateway;
let worker: Awaited<ReturnType<typeof startWebhookWorker>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const secrets = new Map<string, string>();
let unbound: string;
let bound: string;

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  await generateLegacyData(dashboard.conn, { scale: 0.05, seed: 12 });
  await syncOnce(env);
  const limits = { RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_HOUR: '100000' };
  gateway = await startGateway(env, { ...limits, ...WEBHOOK_SETTINGS });
  strictGateway = await startGateway(env, limits);
  const scopes = [...READ_SCOPES, 'webhooks:manage' as const];
  unbound = await issueToken(gateway, await createTestClient(gateway.db, { scopes }));
  bound = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes, branchId: BOUND_BRANCH }),
  );
  receiver = await startReceiver({ secrets });
  worker = await startWebhookWorker(env, WEBHOOK_SETTINGS);
});

afterAll(async () => {
  await worker?.close();
  await receiver?.close();
  await gateway?.close();
  await strictGateway?.close();
  await dashboard?.close();
  await env?.destroy();
});

const subscribe = (on: RunningGateway, token: string, body: Record<string, unknown>) =>
  postJson(`${on.url}/api/v1/webhooks`, body, bearer(token).headers);

async function subscribed(token: string, path: string, body: Record<string, unknown> = {}) {
  const answer = await subscribe(gateway, token, { url: receiver.url(path), ...body });
  expect(answer.status).toBe(201);
  expect(answer.body.data.secret).toMatch(/^whsec_/);
  secrets.set(path, answer.body.data.secret as string);
  return answer.body.data.id as number;
}

interface Figures {
  events: { published: number; delivered: number; failed: number; pending: number };
  attempts: Record<string, number>;
}

const figures = async (token: string, id: number): Promise<Figures> => {
  const answer = await getJson(`${gateway.url}/api/v1/webhooks/${id}`, bearer(token));
  expect(answer.status).toBe(200);
  return answer.body.data.deliveries as Figures;
};

/** The feed key a delivery's cursor holds: partners apply events in this order. */
const keyOf = (event: Received) => {
  const cursor = payloadOf(event.parsed.cursor as string);
  return [BigInt(cursor.x), cursor.k, cursor.t, cursor.i] as const;
};
const byKey = (a: Received, b: Received) => {
  const [x, y] = [keyOf(a), keyOf(b)];
  for (let i = 0; i < 4; i++) if (x[i]! !== y[i]!) return x[i]! < y[i]! ? -1 : 1;
  return 0;
};

function apply(copy: Map<string, unknown>, events: Received[]) {
  for (const event of [...events].sort(byKey)) {
    const change = event.parsed.data as { type: string; id: number; op: string; data: unknown };
    expect(event.parsed.type).toBe(`${change.type}.${change.op}`);
    if (change.op === 'upsert') copy.set(`${change.type}:${change.id}`, change.data);
    else copy.delete(`${change.type}:${change.id}`);
  }
}

describe('a partner receiving webhooks', () => {
  it('when legacy rows change, then every delivery verifies, carries a signed cursor the feed resumes from, and its copy ends equal to the lists, bound or not', async () => {
    const ids = {
      unbound: await subscribed(unbound, '/unbound'),
      bound: await subscribed(bound, '/bound'),
    };
    const copies = { unbound: await listed(gateway, unbound), bound: await listed(gateway, bound) };

    const [moved] = await dashboard.query<{ id: number }>(
      'SELECT id FROM members WHERE branch_id = ? AND is_deleted = 0 ORDER BY id LIMIT 1',
      [BOUND_BRANCH],
    );
    const [deleted] = await dashboard.query<{ id: number }>(
      'SELECT id FROM members WHERE branch_id = 2 AND is_deleted = 0 ORDER BY id LIMIT 1',
    );
    const [hardDeleted] = await dashboard.query<{ id: number }>(
      'SELECT id FROM notifications ORDER BY id LIMIT 1',
    );
    await dashboard.insertMember({ branch_id: BOUND_BRANCH, full_name: 'Kancayla Gelen' });
    await dashboard.insertMember({ branch_id: 2, full_name: 'Öteki Şubeden' });
    await dashboard.update('members', moved!.id, { branch_id: 2 });
    await dashboard.update('members', deleted!.id, { is_deleted: 1 });
    await dashboard.query('DELETE FROM notifications WHERE id = ?', [hardDeleted!.id]);
    await dashboard.query('UPDATE branches SET name = ? WHERE id = ?', ['Kanca Şubesi', 2]);
    await syncOnce(env);
    await reconcileOnce(env, gateway.db);

    for (const [name, token] of [
      ['unbound', unbound],
      ['bound', bound],
    ] as const) {
      await eventually(async () => {
        const now = await figures(token, ids[name]);
        expect(now.events.published).toBeGreaterThan(0);
        expect(now.events.delivered).toBe(now.events.published);
      }, 20_000);
    }
    const events = (path: string) => receiver.received.filter((r) => r.path === path);
    // Every change is delivered once the dispatcher has reached it: a change dispatched after the
    // figures above first matched (the reconciliation's delete) arrives a little later.
    for (const [name, token] of [
      ['unbound', unbound],
      ['bound', bound],
    ] as const) {
      await eventually(async () => {
        const copy = new Map(copies[name]);
        apply(copy, events(`/${name}`));
        await expectCopyEqualsLists(gateway, token, copy);
      }, 20_000);
    }
    expect(events('/unbound').every((event) => event.verified)).toBe(true);
    expect(events('/bound').every((event) => event.verified)).toBe(true);
    // Each event's cursor is the API's own: signed, and GET /changes follows on from it.
    const cursors = events('/bound').map((e) => e.parsed.cursor as string);
    expect(cursors.filter((cursor) => !isSignedCursor(cursor))).toEqual([]);
    const resumed = await getJson(
      `${gateway.url}/api/v1/changes?cursor=${cursors.at(-1)}`,
      bearer(bound),
    );
    expect(resumed.status).toBe(200);

    // The bound subscription: only its branch's rows and those of none; the move is a delete.
    const boundChanges = events('/bound').map((e) => e.parsed.data as Record<string, unknown>);
    expect(boundChanges.every((c) => c.branch_id === BOUND_BRANCH || c.branch_id === null)).toBe(
      true,
    );
    expect(boundChanges).toContainEqual(
      expect.objectContaining({ type: 'members', id: moved!.id, op: 'delete' }),
    );
    expect(
      boundChanges.some(
        (c) => (c.data as { full_name?: string } | null)?.full_name === 'Öteki Şubeden',
      ),
    ).toBe(false);
    // webhook-id: one per event; the ledger holds.
    const unboundIds = events('/unbound').map((e) => e.id);
    expect(new Set(unboundIds).size).toBe(unboundIds.length);
    const ledger = await figures(unbound, ids.unbound);
    expect(ledger.events.published).toBe(
      ledger.events.delivered + ledger.events.failed + ledger.events.pending,
    );
    expect(ledger.events.published).toBe(unboundIds.length);
  });

  it('when signing the published test vector, then the signature is the specification’s', () => {
    const headers = signedHeaders(
      {
        message_id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
        body: '{"test": 2432232314}',
        secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      },
      new Date(1614265330 * 1000),
    );
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });
});

describe('refusals at subscribe time', () => {
  it('when a type is outside the client scopes, then 403; an unknown type is 400', async () => {
    const membersOnly = await issueToken(
      gateway,
      await createTestClient(gateway.db, { scopes: ['members:read', 'webhooks:manage'] }),
    );
    const url = receiver.url('/scoped');
    expect((await subscribe(gateway, membersOnly, { url, types: ['staff'] })).body.error).toBe(
      'INSUFFICIENT_SCOPE',
    );
    expect((await subscribe(gateway, membersOnly, { url, types: ['uyeler'] })).status).toBe(400);
    expect((await subscribe(gateway, membersOnly, { url, types: ['members'] })).status).toBe(201);
  });

  it('when the client lacks webhooks:manage, then 403', async () => {
    const reader = await issueToken(
      gateway,
      await createTestClient(gateway.db, { scopes: READ_SCOPES }),
    );
    const answer = await subscribe(gateway, reader, { url: receiver.url('/x') });
    expect([answer.status, answer.body.error]).toEqual([403, 'INSUFFICIENT_SCOPE']);
  });

  it.each([
    'http://127.0.0.1:9/hook',
    'http://localhost/hook',
    'http://10.1.2.3/hook',
    'http://192.168.0.10/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'ftp://example.com/hook',
    'http://user:pass@example.com/hook',
  ])('when the target is %s and private targets are not allowed, then 400', async (url) => {
    const token = await issueToken(
      strictGateway,
      await createTestClient(strictGateway.db, { scopes: ['members:read', 'webhooks:manage'] }),
    );
    const answer = await subscribe(strictGateway, token, { url });
    expect([answer.status, answer.body.error]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

describe('answers that are not a success', () => {
  it('when the target redirects, then the try is a failure; when it answers 410, then the subscription is disabled', async () => {
    const token = await issueToken(
      gateway,
      await createTestClient(gateway.db, { scopes: ['members:read', 'webhooks:manage'] }),
    );
    const redirected = await subscribed(token, '/redirect', { types: ['members'] });
    const gone = await subscribed(token, '/gone', { types: ['members'] });
    receiver.answerWith((request) =>
      request.path === '/redirect'
        ? { status: 302, headers: { location: receiver.url('/elsewhere') } }
        : request.path === '/gone'
          ? { status: 410 }
          : { status: 204 },
    );
    try {
      await dashboard.insertMember({ branch_id: 2, full_name: 'Yönlendirilen' });
      await syncOnce(env);
      await eventually(async () => {
        const attempts = await getJson(
          `${gateway.url}/api/v1/webhooks/${redirected}/deliveries`,
          bearer(token),
        );
        expect(attempts.body.data.length).toBeGreaterThanOrEqual(2);
        expect(attempts.body.data.every((a: { outcome: string }) => a.outcome === 'redirect')).toBe(
          true,
        );
      }, 10_000);
      expect(receiver.received.some((r) => r.path === '/elsewhere')).toBe(false);
      await eventually(async () => {
        const answer = await getJson(`${gateway.url}/api/v1/webhooks/${gone}`, bearer(token));
        expect([answer.body.data.enabled, answer.body.data.disabled_reason]).toEqual([
          false,
          'gone',
        ]);
      }, 10_000);
      const goneFigures = await figures(token, gone);
      expect(goneFigures.attempts).toEqual({ gone: 1 });
      expect(goneFigures.events.pending).toBe(goneFigures.events.published);
    } finally {
      receiver.answerWith(() => ({ status: 204 }));
    }
  });
});

describe('subscriptions whose credentials ended', () => {
  const partnerScopes = ['members:read', 'webhooks:manage'] as const;
  const clients = async (...args: string[]) => operatorCli(env, 'clients', ...args);
  const stateOf = async (token: string, id: number) => {
    const answer = await getJson(`${gateway.url}/api/v1/webhooks/${id}`, bearer(token));
    return [answer.body.data.enabled, answer.body.data.disabled_reason] as const;
  };
  const enable = (token: string, id: number) =>
    postJson(`${gateway.url}/api/v1/webhooks/${id}/enable`, {}, bearer(token).headers);
  const arrived = (path: string) => receiver.received.filter((r) => r.path === path);
  const auditOf = (client: TestClient) =>
    gateway.db.operatorAudit.findMany({
      where: { client_key: client.client_key, action: 'webhooks.disable' },
      select: { actor: true, target: true },
      orderBy: { id: 'asc' },
    });

  it('when the secret is rotated without an overlap, then the subscription its tokens made is disabled credentials-ended and receives nothing, one made under the new secret receives, and the partner enables the first again', async () => {
    const client = await createTestClient(gateway.db, { scopes: [...partnerScopes] });
    const leaked = await issueToken(gateway, client);
    const tapped = await subscribed(leaked, '/ended-tap', { types: ['members'] });

    const rotated = JSON.parse(await clients('rotate-secret', client.client_key, '--json')) as {
      client_secret: string;
      subscriptions_disabled: number[];
    };
    const renewed = { ...client, client_secret: rotated.client_secret };
    const fresh = await issueToken(gateway, renewed);
    const kept = await subscribed(fresh, '/ended-kept', { types: ['members'] });

    expect(await stateOf(fresh, tapped)).toEqual([false, 'credentials-ended']);
    expect(await stateOf(fresh, kept)).toEqual([true, null]);
    expect(rotated.subscriptions_disabled).toEqual([tapped]);
    expect(await operatorCli(env, 'webhooks', 'list', '--client', client.client_key)).toMatch(
      new RegExp(`^${tapped} .*disabled \\(credentials-ended\\)`, 'm'),
    );
    expect(await auditOf(client)).toEqual([
      { actor: 'system', target: `subscription ${tapped}: credentials-ended` },
    ]);

    await dashboard.insertMember({ branch_id: 2, full_name: 'Sızıntı Sonrası' });
    await syncOnce(env);
    await eventually(() => expect(arrived('/ended-kept').length).toBeGreaterThan(0), 10_000);
    expect(arrived('/ended-tap')).toEqual([]);

    // The partner looked: enabled with its new credentials, the subscription catches up.
    const enabled = await enable(fresh, tapped);
    expect([enabled.status, enabled.body.data.enabled]).toEqual([200, true]);
    expect(await stateOf(fresh, tapped)).toEqual([true, null]);
    await eventually(() => expect(arrived('/ended-tap').length).toBeGreaterThan(0), 10_000);
    // It stands on the new credentials now: a rotation that ends them disables it again.
    await clients('rotate-secret', client.client_key);
    expect(
      await gateway.db.webhookSubscription.findMany({
        where: { id: { in: [tapped, kept] } },
        select: { id: true, disabled_reason: true },
        orderBy: { id: 'asc' },
      }),
    ).toEqual([
      { id: tapped, disabled_reason: 'credentials-ended' },
      { id: kept, disabled_reason: 'credentials-ended' },
    ]);
  });

  it.each(['revoke-tokens', 'disable'] as const)(
    'when the operator runs %s, then the subscriptions the tokens made are disabled credentials-ended until the partner enables one with a new token',
    async (command) => {
      const client = await createTestClient(gateway.db, { scopes: [...partnerScopes] });
      const token = await issueToken(gateway, client);
      const id = await subscribed(token, `/ended-${command}`, { types: ['members'] });
      const other = await createTestClient(gateway.db, { scopes: [...partnerScopes] });
      const untouched = await subscribed(
        await issueToken(gateway, other),
        `/ended-${command}-other`,
      );

      const done = JSON.parse(await clients(command, client.client_key, '--json')) as {
        subscriptions_disabled: number[];
      };
      if (command === 'disable') await clients('enable', client.client_key);
      const next = await issueToken(gateway, client);
      expect(await stateOf(next, id)).toEqual([false, 'credentials-ended']);
      expect(done.subscriptions_disabled).toEqual([id]);
      expect(
        await gateway.db.webhookSubscription.findUniqueOrThrow({
          where: { id: untouched },
          select: { enabled: true },
        }),
      ).toEqual({ enabled: true });
      expect(await auditOf(client)).toEqual([
        { actor: 'system', target: `subscription ${id}: credentials-ended` },
      ]);

      expect((await enable(next, id)).status).toBe(200);
      expect(await stateOf(next, id)).toEqual([true, null]);
    },
  );
});
