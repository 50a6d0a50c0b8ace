import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect } from 'vitest';
import { TOKEN_REQUESTS_AT_ONCE } from '../../gateway/src/features/auth/tokens.service.js';
import { clientTest } from '../support/fixtures.js';
import {
  createTestClient,
  getJson,
  issueToken,
  postJson,
  startGateway,
  type RunningGateway,
  type TestClient,
} from '../support/gateway.js';
import { eventually } from '../support/eventually.js';

const it = clientTest({}, { scopes: ['members:list', 'members:read'], branchId: 3 });

// Read by the helpers below as by the tests.
let gateway: RunningGateway;
let client: TestClient;

it.beforeAll(({ gateway: started, client: made }) => {
  gateway = started;
  client = made;
});

const tokenUrl = () => `${gateway.url}/api/v1/auth/token`;

function expectErrorBody(body: Record<string, unknown>, code: string) {
  expect(body).toMatchObject({ success: false, error: code });
  expect(typeof body.message).toBe('string');
  expect(typeof body.request_id).toBe('string');
}

describe('POST /api/v1/auth/token', () => {
  it('when the credentials are right, then it answers TokenData exactly as specified', async () => {
    const { status, body, headers } = await postJson(tokenUrl(), {
      client_key: client.client_key,
      client_secret: client.client_secret,
    });
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(body.success).toBe(true);
    expect(Object.keys(body.data).sort()).toEqual(
      [
        'access_token',
        'branch_id',
        'data_classes',
        'expires_in',
        'refresh_expires_in',
        'refresh_token',
        'scopes',
        'token_type',
      ].sort(),
    );
    expect(body.data).toMatchObject({
      token_type: 'Bearer',
      expires_in: 7200,
      refresh_expires_in: 2592000,
      scopes: ['members:list', 'members:read'],
      branch_id: 3,
      data_classes: ['basic', 'contact', 'identity', 'address', 'access', 'finance', 'staff'],
    });
    // At least 256 bits of randomness, base64url.
    expect(body.data.access_token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(body.data.refresh_token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(body.data.access_token).not.toBe(body.data.refresh_token);
  });

  it('when the secret is wrong, then it answers 401 INVALID_TOKEN', async () => {
    const { status, body } = await postJson(tokenUrl(), {
      client_key: client.client_key,
      client_secret: 'wrong',
    });
    expect(status).toBe(401);
    expectErrorBody(body, 'INVALID_TOKEN');
  });

  it('when the client key is unknown, then it answers 401 INVALID_TOKEN', async () => {
    const { status, body } = await postJson(tokenUrl(), {
      client_key: 'ck_unknown',
      client_secret: client.client_secret,
    });
    expect(status).toBe(401);
    expectErrorBody(body, 'INVALID_TOKEN');
  });

  it.each([
    ['client_secret missing', { client_key: 'x' }, 'client_secret'],
    ['client_key missing', { client_secret: 'x' }, 'client_key'],
    ['both empty', { client_key: '', client_secret: '' }, 'client_key'],
  ])(
    'when %s, then it answers 400 VALIDATION_ERROR naming the field',
    async (_case, payload, field) => {
      const { status, body } = await postJson(tokenUrl(), payload);
      expect(status).toBe(400);
      expectErrorBody(body, 'VALIDATION_ERROR');
      expect(body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    },
  );

  it('when the body is malformed JSON, then it answers 400 VALIDATION_ERROR', async () => {
    const { status, body } = await postJson(tokenUrl(), '{"client_key": ');
    expect(status).toBe(400);
    expectErrorBody(body, 'VALIDATION_ERROR');
  });

  it('when the client is disabled, then it answers 403 INSUFFICIENT_SCOPE', async () => {
    const disabled = await createTestClient(gateway.db);
    await gateway.db.apiClient.update({ where: { id: disabled.id }, data: { is_active: false } });
    const { status, body } = await postJson(tokenUrl(), {
      client_key: disabled.client_key,
      client_secret: disabled.client_secret,
    });
    expect(status).toBe(403);
    expectErrorBody(body, 'INSUFFICIENT_SCOPE');
  });

  it('when the client holds no scope, then it answers 403 INSUFFICIENT_SCOPE', async () => {
    const scopeless = await createTestClient(gateway.db, { scopes: [] });
    const { status, body } = await postJson(tokenUrl(), {
      client_key: scopeless.client_key,
      client_secret: scopeless.client_secret,
    });
    expect(status).toBe(403);
    expectErrorBody(body, 'INSUFFICIENT_SCOPE');
  });

  it('then the database holds no raw token or secret', async () => {
    const { body } = await postJson(tokenUrl(), {
      client_key: client.client_key,
      client_secret: client.client_secret,
    });
    const { access_token, refresh_token } = body.data as {
      access_token: string;
      refresh_token: string;
    };
    const dump = JSON.stringify([
      await gateway.db.apiToken.findMany(),
      await gateway.db.apiClient.findMany(),
    ]);
    expect(dump).not.toContain(access_token);
    expect(dump).not.toContain(refresh_token);
    expect(dump).not.toContain(client.client_secret);
    const stored = await gateway.db.apiClient.findUniqueOrThrow({ where: { id: client.id } });
    expect(stored.secret_hash).toMatch(/^hmac-sha256\$/);
  });
});

describe('token requests of a storm', () => {
  it('when many wait on the database, then only TOKEN_REQUESTS_AT_ONCE hold a connection, a read is still answered, and those who leave get no pair', async ({
    env,
  }) => {
    // Its own gateway, with a query bound longer than the lock is held here on a slow machine.
    const storming = await startGateway(env, { DB_QUERY_TIMEOUT_MS: '20000' });
    const holder = new pg.Client({ connectionString: env.databaseUrl });
    await holder.connect();
    // Outside the holder's transaction, which sees pg_stat_activity as it was when it began.
    const observer = new pg.Client({ connectionString: env.databaseUrl });
    await observer.connect();
    try {
      const reader = await issueToken(storming, client);
      const clients = [];
      for (let i = 0; i < 3 * TOKEN_REQUESTS_AT_ONCE; i++)
        clients.push(await createTestClient(storming.db, { scopes: ['members:list'] }));
      // Every issuance's insert waits behind this lock, holding its connection meanwhile.
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE api_tokens IN EXCLUSIVE MODE');
      const storm = clients.map((c) =>
        postJson(`${storming.url}/api/v1/auth/token`, {
          client_key: c.client_key,
          client_secret: c.client_secret,
        }),
      );
      const waiting = async () => {
        const { rows } = await observer.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'
              AND query LIKE '%INSERT INTO api_tokens%'`,
        );
        return rows[0]!.n;
      };
      await eventually(async () => expect(await waiting()).toBe(TOKEN_REQUESTS_AT_ONCE), 10_000);
      // The gateway's pool has more connections than that: a read finds one free.
      const read = await getJson(`${storming.url}/api/v1/members?limit=1`, {
        headers: { authorization: `Bearer ${reader}` },
      });
      expect(read.status).toBe(200);
      expect(await waiting()).toBe(TOKEN_REQUESTS_AT_ONCE);
      // Clients that give up while they wait their turn (one per endpoint): no pair is made for
      // them once the turns move on.
      const leaving = new AbortController();
      const left = await Promise.all([
        createTestClient(storming.db, { scopes: ['members:list'] }),
        createTestClient(storming.db, { scopes: ['members:list'] }),
      ]);
      const gaveUp = [
        fetch(`${storming.url}/api/v1/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_key: left[0].client_key,
            client_secret: left[0].client_secret,
          }),
          signal: leaving.signal,
        }),
        fetch(`${storming.url}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: left[1].client_key,
            client_secret: left[1].client_secret,
          }).toString(),
          signal: leaving.signal,
        }),
      ].map((request) =>
        request.then(
          () => 'answered',
          () => 'gave up',
        ),
      );
      await sleep(500); // through the throttle, into the line
      leaving.abort();
      expect(await Promise.all(gaveUp)).toEqual(['gave up', 'gave up']);
      await holder.query('COMMIT');
      const answers = await Promise.all(storm);
      expect(answers.map((a) => a.status)).toEqual(clients.map(() => 200));
      // The storm's pairs are all made by now: the line has passed those who left.
      const pairsOf = (ids: number[]) =>
        storming.db.apiToken.count({ where: { client_id: { in: ids } } });
      expect(await pairsOf(clients.map((c) => c.id))).toBeGreaterThan(0);
      await sleep(500);
      expect(await pairsOf(left.map((c) => c.id))).toBe(0);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
      await observer.end();
      await storming.close();
    }
  });
});
