// The token lifecycle over /api/v1/auth/{token,refresh,revoke}: lifetimes from the environment,
// rotation, reuse detection (also under a race), revocation, and every applicable error row.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect } from 'vitest';
import { sha256 } from '../../gateway/src/trust/client-secrets.js';
import { clientTest } from '../support/fixtures.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueTokenPair,
  postJson,
  startGateway,
  type RunningGateway,
  type TestClient,
  type TokenPair,
} from '../support/gateway.js';

const ACCESS_TTL = 900;
const REFRESH_TTL = 3600;
// Many failures from one address on purpose; the throttle has its own test.
const OVERRIDES = {
  ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TTL),
  REFRESH_TOKEN_TTL_SECONDS: String(REFRESH_TTL),
  AUTH_FAILED_ATTEMPTS_PER_MINUTE: '10000',
};

const it = clientTest(OVERRIDES, { scopes: ['members:list'], branchId: 4 });

// Read by the helpers below as by the tests.
let gateway: RunningGateway;
let client: TestClient;

it.beforeAll(({ gateway: started, client: made }) => {
  gateway = started;
  client = made;
});

const refresh = (refreshToken: unknown) =>
  postJson(`${gateway.url}/api/v1/auth/refresh`, { refresh_token: refreshToken });
const revoke = (accessToken: string, body?: unknown) =>
  body === undefined
    ? getJson(`${gateway.url}/api/v1/auth/revoke`, { method: 'POST', ...bearer(accessToken) })
    : postJson(`${gateway.url}/api/v1/auth/revoke`, body, bearer(accessToken).headers);
const members = (accessToken: string) =>
  getJson(`${gateway.url}/api/v1/members`, bearer(accessToken));
const pair = () => issueTokenPair(gateway, client);

function expectError(response: { status: number; body: any }, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.body).toMatchObject({ success: false, error: code });
  expect(typeof response.body.message).toBe('string');
}

function expectTokenData(body: any, expected: { scopes: string[]; branch_id: number | null }) {
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
  expect(body.data).toEqual({
    access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/),
    refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/),
    token_type: 'Bearer',
    expires_in: ACCESS_TTL,
    refresh_expires_in: REFRESH_TTL,
    // The test clients hold every class of members' personal data.
    data_classes: ['basic', 'contact', 'identity', 'address', 'access', 'finance', 'staff'],
    ...expected,
  });
}

describe('POST /api/v1/auth/token lifetimes', () => {
  it('when the lifetimes are configured, then TokenData and the stored expiries follow them', async () => {
    const before = Date.now();
    const { status, body } = await postJson(`${gateway.url}/api/v1/auth/token`, {
      client_key: client.client_key,
      client_secret: client.client_secret,
    });
    expect(status).toBe(200);
    expectTokenData(body, { scopes: ['members:list'], branch_id: 4 });
    const row = await gateway.db.apiToken.findFirstOrThrow({
      where: { client_id: client.id },
      orderBy: { created_at: 'desc' },
    });
    const accessIn = (row.access_expires_at.getTime() - before) / 1000;
    const refreshIn = (row.refresh_expires_at.getTime() - before) / 1000;
    expect(accessIn).toBeGreaterThan(ACCESS_TTL - 5);
    expect(accessIn).toBeLessThan(ACCESS_TTL + 5);
    expect(refreshIn).toBeGreaterThan(REFRESH_TTL - 5);
    expect(refreshIn).toBeLessThan(REFRESH_TTL + 5);
  });
});

describe('POST /api/v1/auth/refresh', () => {
  it('when the refresh token is current, then it answers a new TokenData pair and revokes the old pair', async () => {
    const old = await pair();
    const { status, body, headers } = await refresh(old.refresh_token);
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expectTokenData(body, { scopes: ['members:list'], branch_id: 4 });
    expect(body.data.access_token).not.toBe(old.access_token);
    expect(body.data.refresh_token).not.toBe(old.refresh_token);
    expect((await members(body.data.access_token)).status).toBe(200);
    expectError(await members(old.access_token), 401, 'INVALID_TOKEN');
  });

  it('when a rotated refresh token is presented again, then it answers 401 and revokes the whole chain', async () => {
    const first = await pair();
    const second = (await refresh(first.refresh_token)).body.data as TokenPair;
    const third = (await refresh(second.refresh_token)).body.data as TokenPair;
    expect((await members(third.access_token)).status).toBe(200);

    expectError(await refresh(first.refresh_token), 401, 'INVALID_TOKEN');
    expectError(await members(third.access_token), 401, 'INVALID_TOKEN');
    expectError(await refresh(third.refresh_token), 401, 'INVALID_TOKEN');
    const unrevoked = await gateway.db.apiToken.count({
      where: { chain_id: await chainOf(first), revoked_at: null },
    });
    expect(unrevoked).toBe(0);
  });

  it('when the same refresh token is refreshed twice at once, then exactly one wins and the whole chain, the winner included, is revoked', async () => {
    for (let round = 0; round < 10; round++) {
      const start = await pair();
      const answers = await Promise.all([
        refresh(start.refresh_token),
        refresh(start.refresh_token),
      ]);
      const winners = answers.filter((a) => a.status === 200);
      const losers = answers.filter((a) => a.status !== 200);
      expect(winners, `round ${round}`).toHaveLength(1);
      expect(losers, `round ${round}`).toHaveLength(1);
      expectError(losers[0]!, 401, 'INVALID_TOKEN');
      const won = winners[0]!.body.data as TokenPair;
      expectError(await members(won.access_token), 401, 'INVALID_TOKEN');
      expectError(await refresh(won.refresh_token), 401, 'INVALID_TOKEN');
      const chainId = await chainOf(start);
      const rows = await gateway.db.apiToken.findMany({ where: { chain_id: chainId } });
      expect(rows, `round ${round}`).toHaveLength(2);
      expect(rows.every((r) => r.revoked_at !== null && r.revoke_reason === 'reuse')).toBe(true);
    }
  });

  it.each([
    ['the body is empty', {}, 'refresh_token'],
    ['refresh_token is empty', { refresh_token: '' }, 'refresh_token'],
    ['refresh_token is not a string', { refresh_token: 42 }, 'refresh_token'],
  ])(
    'when %s, then it answers 400 VALIDATION_ERROR naming the field',
    async (_case, payload, field) => {
      const response = await postJson(`${gateway.url}/api/v1/auth/refresh`, payload);
      expectError(response, 400, 'VALIDATION_ERROR');
      expect(response.body.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ field })]),
      );
    },
  );

  it('when the body is malformed JSON, then it answers 400 VALIDATION_ERROR', async () => {
    expectError(
      await postJson(`${gateway.url}/api/v1/auth/refresh`, '{"refresh_token":'),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('when the refresh token is unknown, then it answers 401 INVALID_TOKEN', async () => {
    expectError(await refresh('x'.repeat(43)), 401, 'INVALID_TOKEN');
  });

  it('when an access token is presented as refresh token, then it answers 401 INVALID_TOKEN', async () => {
    expectError(await refresh((await pair()).access_token), 401, 'INVALID_TOKEN');
  });

  it('when the pair was revoked, then its refresh token answers 401 INVALID_TOKEN', async () => {
    const revoked = await pair();
    expect((await revoke(revoked.access_token)).status).toBe(200);
    expectError(await refresh(revoked.refresh_token), 401, 'INVALID_TOKEN');
  });

  it('when the refresh token has expired, then it answers 401 INVALID_TOKEN', async ({ env }) => {
    const shortLived = await startGateway(env, { ...OVERRIDES, REFRESH_TOKEN_TTL_SECONDS: '1' });
    try {
      const expiring = await issueTokenPair(shortLived, client);
      await sleep(1100);
      expectError(await refresh(expiring.refresh_token), 401, 'INVALID_TOKEN');
    } finally {
      await shortLived.close();
    }
  });

  it('when the client was disabled, then it answers 403 INSUFFICIENT_SCOPE', async () => {
    const other = await createTestClient(gateway.db);
    const held = await issueTokenPair(gateway, other);
    await gateway.db.apiClient.update({ where: { id: other.id }, data: { is_active: false } });
    expectError(await refresh(held.refresh_token), 403, 'INSUFFICIENT_SCOPE');
  });

  it('when the client no longer holds any scope, then it answers 403 INSUFFICIENT_SCOPE', async () => {
    const other = await createTestClient(gateway.db);
    const held = await issueTokenPair(gateway, other);
    await gateway.db.apiClient.update({ where: { id: other.id }, data: { scopes: [] } });
    expectError(await refresh(held.refresh_token), 403, 'INSUFFICIENT_SCOPE');
  });
});

describe('POST /api/v1/auth/revoke', () => {
  it('when the body is absent, then it revokes the presented access token and its refresh token only', async () => {
    const presented = await pair();
    const other = await pair();
    const { status, body } = await revoke(presented.access_token);
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, message: expect.any(String) });
    expectError(await members(presented.access_token), 401, 'INVALID_TOKEN');
    expectError(await refresh(presented.refresh_token), 401, 'INVALID_TOKEN');
    expect((await members(other.access_token)).status).toBe(200);
  });

  it('when token_type is current, then it revokes only the presented pair', async () => {
    const presented = await pair();
    const other = await pair();
    expect((await revoke(presented.access_token, { token_type: 'current' })).body.success).toBe(
      true,
    );
    expectError(await members(presented.access_token), 401, 'INVALID_TOKEN');
    expect((await members(other.access_token)).status).toBe(200);
  });

  it("when token_type is all, then every token of the client stops working and other clients' do not", async () => {
    const owner = await createTestClient(gateway.db);
    const pairs = [await issueTokenPair(gateway, owner), await issueTokenPair(gateway, owner)];
    const bystander = await pair();
    const { status, body } = await revoke(pairs[0]!.access_token, { token_type: 'all' });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, message: expect.any(String) });
    for (const revoked of pairs) {
      expectError(await members(revoked.access_token), 401, 'INVALID_TOKEN');
      expectError(await refresh(revoked.refresh_token), 401, 'INVALID_TOKEN');
    }
    expect((await members(bystander.access_token)).status).toBe(200);
  });

  it('when the client holds no scope any more, then a valid token may still revoke', async () => {
    const other = await createTestClient(gateway.db);
    const held = await issueTokenPair(gateway, other);
    await gateway.db.apiClient.update({ where: { id: other.id }, data: { scopes: [] } });
    expect((await revoke(held.access_token)).status).toBe(200);
  });

  it.each([
    ['no token', {}],
    ['a garbage token', { authorization: 'Bearer garbage' }],
  ])('when called with %s, then it answers 401 INVALID_TOKEN', async (_case, headers) => {
    const response = await postJson(`${gateway.url}/api/v1/auth/revoke`, {}, headers);
    expectError(response, 401, 'INVALID_TOKEN');
  });

  it('when the token was already revoked, then it answers 401 INVALID_TOKEN', async () => {
    const held = await pair();
    await revoke(held.access_token);
    expectError(await revoke(held.access_token), 401, 'INVALID_TOKEN');
  });

  it('when token_type is unknown, then it answers 400 VALIDATION_ERROR and revokes nothing', async () => {
    const held = await pair();
    expectError(await revoke(held.access_token, { token_type: 'some' }), 400, 'VALIDATION_ERROR');
    expect((await members(held.access_token)).status).toBe(200);
  });
});

async function chainOf(tokens: TokenPair): Promise<string> {
  const row = await gateway.db.apiToken.findUniqueOrThrow({
    where: { access_token_hash: sha256(tokens.access_token) },
  });
  return row.chain_id;
}
