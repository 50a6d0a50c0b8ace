// The per-process token cache (docs/decisions/0005-fast-hot-path.md): two gateway instances that
// both hold a token in their caches refuse it on their very next request once it is revoked,
// rotated, or its client disabled through either of them or through the operator's commands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientEpochs } from '../../gateway/src/trust/client-epochs.js';
import { sha256 } from '../../gateway/src/trust/client-secrets.js';
import {
  setClientActive,
  setClientScopes,
} from '../../gateway/src/features/clients/clients.repository.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueTokenPair,
  postJson,
  startGateway,
  type RunningGateway,
  type TokenPair,
} from '../support/gateway.js';

let env: TestEnvironment;
let one: RunningGateway;
let two: RunningGateway;

beforeAll(async () => {
  env = await createTestEnvironment();
  // A long cache, so nothing below can pass because an entry simply ran out.
  [one, two] = await Promise.all([
    startGateway(env, { TOKEN_CACHE_SECONDS: '300' }),
    startGateway(env, { TOKEN_CACHE_SECONDS: '300' }),
  ]);
});

afterAll(async () => {
  await Promise.all([one?.close(), two?.close()]);
  await env?.destroy();
});

const member = (gateway: RunningGateway, accessToken: string) =>
  getJson(`${gateway.url}/api/v1/members?limit=1`, bearer(accessToken));
const epochs = () => createClientEpochs(one.redis, env.redisPrefix);

/** A fresh client's token pair, in both instances' caches. */
async function cachedEverywhere() {
  const client = await createTestClient(one.db);
  const pair = await issueTokenPair(one, client);
  for (const gateway of [one, two])
    expect((await member(gateway, pair.access_token)).status).toBe(200);
  return { client, pair };
}

function expectRefused(response: { status: number; body: any }, status = 401) {
  expect(response.status).toBe(status);
  expect(response.body.success).toBe(false);
}

describe('token cache', () => {
  it('when a token is cached, then a change PostgreSQL alone sees does not reach it, and the next epoch change does', async () => {
    // Proves the cases below run against the cache: a row edited behind the gateway's back
    // (no epoch change) is not re-read...
    const { client, pair } = await cachedEverywhere();
    await one.db.apiToken.update({
      where: { access_token_hash: sha256(pair.access_token) },
      data: { revoked_at: new Date(), revoke_reason: 'revoked' },
    });
    expect((await member(two, pair.access_token)).status).toBe(200);
    // ...until the client's epoch moves, which every writing path does.
    await epochs().bump(client.id);
    expectRefused(await member(two, pair.access_token));
    expectRefused(await member(one, pair.access_token));
  });

  it('when a token is revoked through one instance, then the other refuses it on its next request', async () => {
    const { pair } = await cachedEverywhere();
    const revoked = await postJson(
      `${one.url}/api/v1/auth/revoke`,
      { token_type: 'current' },
      bearer(pair.access_token).headers,
    );
    expect(revoked.status).toBe(200);
    expectRefused(await member(two, pair.access_token));
    expectRefused(await member(one, pair.access_token));
  });

  it('when a pair is rotated through one instance, then the other refuses the old access token on its next request', async () => {
    const { pair } = await cachedEverywhere();
    const rotated = await postJson(`${two.url}/api/v1/auth/refresh`, {
      refresh_token: pair.refresh_token,
    });
    expect(rotated.status).toBe(200);
    expectRefused(await member(one, pair.access_token));
    expectRefused(await member(two, pair.access_token));
    const fresh = rotated.body.data as TokenPair;
    expect((await member(one, fresh.access_token)).status).toBe(200);
  });

  it('when the operator disables the client, then both instances refuse its cached token on their next request', async () => {
    const { client, pair } = await cachedEverywhere();
    expect(await setClientActive(one.db, epochs(), client.client_key, false)).toBe(true);
    expectRefused(await member(two, pair.access_token));
    expectRefused(await member(one, pair.access_token));
  });

  it('when the operator takes a scope away, then the cached token loses it on the next request', async () => {
    const { client, pair } = await cachedEverywhere();
    await setClientScopes(one.db, epochs(), client.client_key, ['members:read']);
    expectRefused(await member(two, pair.access_token), 403);
  });

  it('when the cache is off, then a token revoked in PostgreSQL alone is refused on the next request', async () => {
    const uncached = await startGateway(env, { TOKEN_CACHE_SECONDS: '0' });
    try {
      const pair = await issueTokenPair(uncached, await createTestClient(uncached.db));
      const first = await member(uncached, pair.access_token);
      expect(first.status).toBe(200);
      expect(first.headers.get('x-ratelimit-remaining-minute')).toBe('59');
      await uncached.db.apiToken.update({
        where: { access_token_hash: sha256(pair.access_token) },
        data: { revoked_at: new Date(), revoke_reason: 'revoked' },
      });
      expectRefused(await member(uncached, pair.access_token));
    } finally {
      await uncached.close();
    }
  });

  it('when a cached token expires under concurrent requests, then they share one read of it', async () => {
    const short = await startGateway(env, { TOKEN_CACHE_SECONDS: '1' });
    try {
      const client = await createTestClient(short.db);
      const pair = await issueTokenPair(short, client);
      expect((await member(short, pair.access_token)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const reads = async () => (await short.metrics.tokenReads.get()).values[0]?.value ?? 0;
      const before = await reads();
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => member(short, pair.access_token)),
      );
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      // Each would read it twice without sharing (60 reads); a few late ones may read again.
      expect((await reads()) - before).toBeLessThanOrEqual(5);
    } finally {
      await short.close();
    }
  });
});
