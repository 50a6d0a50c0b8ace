// Two gateway instances on one database and Redis: revocation, rotation, expiry and a disabled
// client take effect on the other instance on its very next request.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientEpochs } from '../../gateway/src/trust/client-epochs.js';
import { setClientActive } from '../../gateway/src/features/clients/clients.repository.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
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

let env: TestEnvironment;
let one: RunningGateway;
let two: RunningGateway;
let client: TestClient;

beforeAll(async () => {
  env = await createTestEnvironment();
  [one, two] = await Promise.all([startGateway(env), startGateway(env)]);
  client = await createTestClient(one.db);
});

afterAll(async () => {
  await Promise.all([one?.close(), two?.close()]);
  await env?.destroy();
});

const members = (gateway: RunningGateway, accessToken: string) =>
  getJson(`${gateway.url}/api/v1/members`, bearer(accessToken));
const refresh = (gateway: RunningGateway, refreshToken: string) =>
  postJson(`${gateway.url}/api/v1/auth/refresh`, { refresh_token: refreshToken });
const revoke = (gateway: RunningGateway, accessToken: string, tokenType: 'current' | 'all') =>
  postJson(
    `${gateway.url}/api/v1/auth/revoke`,
    { token_type: tokenType },
    bearer(accessToken).headers,
  );

function expectRefused(response: { status: number; body: any }) {
  expect(response.status).toBe(401);
  expect(response.body).toMatchObject({ success: false, error: 'INVALID_TOKEN' });
}

describe('two gateway instances', () => {
  it('when a token is revoked through one, then the other refuses it on the next request', async () => {
    const pair = await issueTokenPair(one, client);
    expect((await members(two, pair.access_token)).status).toBe(200);
    expect((await revoke(one, pair.access_token, 'current')).status).toBe(200);
    expectRefused(await members(two, pair.access_token));
    expectRefused(await refresh(two, pair.refresh_token));
  });

  it('when all tokens are revoked through one, then the other refuses every one of them', async () => {
    const pairs = [await issueTokenPair(one, client), await issueTokenPair(two, client)];
    expect((await revoke(two, pairs[0]!.access_token, 'all')).status).toBe(200);
    for (const pair of pairs) {
      expectRefused(await members(one, pair.access_token));
      expectRefused(await members(two, pair.access_token));
    }
  });

  it('when a pair is rotated through one, then the other refuses the old pair and treats the old refresh token as reuse', async () => {
    const old = await issueTokenPair(one, client);
    const rotated = await refresh(one, old.refresh_token);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data as TokenPair;
    expect((await members(two, fresh.access_token)).status).toBe(200);
    expectRefused(await members(two, old.access_token));
    expectRefused(await refresh(two, old.refresh_token));
    // The replay through the second instance revoked the chain for the first one as well.
    expectRefused(await members(one, fresh.access_token));
  });

  it('when the client is disabled, then both refuse its tokens at once', async () => {
    const other = await createTestClient(one.db);
    const pair = await issueTokenPair(one, other);
    expect((await members(two, pair.access_token)).status).toBe(200);
    // As the operator's `clients disable` does (a bare UPDATE would bypass the token caches).
    await setClientActive(
      one.db,
      createClientEpochs(one.redis, env.redisPrefix),
      other.client_key,
      false,
    );
    expectRefused(await members(one, pair.access_token));
    expectRefused(await members(two, pair.access_token));
  });

  it('when tokens expire, then neither instance accepts them', async () => {
    const lifetimes = { ACCESS_TOKEN_TTL_SECONDS: '2', REFRESH_TOKEN_TTL_SECONDS: '2' };
    const [short1, short2] = await Promise.all([
      startGateway(env, lifetimes),
      startGateway(env, lifetimes),
    ]);
    try {
      const pair = await issueTokenPair(short1, client);
      expect((await members(short2, pair.access_token)).status).toBe(200);
      await sleep(2100);
      expectRefused(await members(short2, pair.access_token));
      expectRefused(await members(short1, pair.access_token));
      expectRefused(await refresh(short2, pair.refresh_token));
    } finally {
      await Promise.all([short1.close(), short2.close()]);
    }
  });
});
