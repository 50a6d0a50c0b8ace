import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from './support/environment.js';
import {
  createTestClient,
  postJson,
  startGateway,
  type RunningGateway,
  type TestClient,
} from './support/gateway.js';

let env: TestEnvironment;
let gateway: RunningGateway;
let client: TestClient;

beforeAll(async () => {
  env = await createTestEnvironment();
  gateway = await startGateway(env);
  client = await createTestClient(gateway.db, {
    scopes: ['members:list', 'members:read'],
    branchId: 3,
  });
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
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
