// A partner's "revoke all" wins over refreshes racing it on two gateways, a refresh chain ends
// REFRESH_CHAIN_MAX_DAYS after the token request that began it, issuance is limited per client
// (TOKEN_ISSUE_PER_MINUTE), and a bearer token that cannot be one of ours is refused without a
// lookup. No assertion here times anything; the operator's commands ending tokens within 1 s are
// auth-operator-control.test.ts's, in the timed group. See docs/decisions/0003-tokens.md.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../gateway/src/trust/client-secrets.js';
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

// Every refused refresh below is a failed attempt from this one address; the failed-attempt
// throttle has tests of its own (auth-throttle.test.ts).
const NO_FAILURE_THROTTLE = { AUTH_FAILED_ATTEMPTS_PER_MINUTE: '1000000' };

beforeAll(async () => {
  env = await createTestEnvironment();
  [one, two] = await Promise.all([
    startGateway(env, NO_FAILURE_THROTTLE),
    startGateway(env, NO_FAILURE_THROTTLE),
  ]);
});

afterAll(async () => {
  await Promise.all([one?.close(), two?.close()]);
  await env?.destroy();
});

const members = (gateway: RunningGateway, accessToken: string) =>
  getJson(`${gateway.url}/api/v1/members?limit=1`, bearer(accessToken));
const refresh = (gateway: RunningGateway, refreshToken: string) =>
  postJson(`${gateway.url}/api/v1/auth/refresh`, { refresh_token: refreshToken });
const token = (gateway: RunningGateway, client: TestClient) =>
  postJson(`${gateway.url}/api/v1/auth/token`, {
    client_key: client.client_key,
    client_secret: client.client_secret,
  });

/** Both gateways answer the access token as `status` (after a warm-up that cached it). */
async function expectAccess(pair: TokenPair, status: number) {
  for (const gateway of [one, two])
    expect((await members(gateway, pair.access_token)).status).toBe(status);
}

describe("a partner's revoke all against refreshes racing it", () => {
  let fast: [RunningGateway, RunningGateway];

  beforeAll(async () => {
    // The race refreshes hundreds of times a minute: no issuance limit in the way here.
    const overrides = { ...NO_FAILURE_THROTTLE, TOKEN_ISSUE_PER_MINUTE: '1000000' };
    fast = await Promise.all([startGateway(env, overrides), startGateway(env, overrides)]);
  });
  afterAll(() => Promise.all(fast.map((gateway) => gateway.close())));

  it('when 50 rounds of revoke all meet 4 parallel refresh loops, then no token is left working', async () => {
    const client = await createTestClient(one.db);
    for (let round = 0; round < 50; round++) {
      const [issuer, ...loops] = await Promise.all(
        [0, 1, 2, 3, 4].map(async (i) => [
          (await token(fast[i % 2]!, client)).body.data as TokenPair,
        ]),
      );
      let revoked = false;
      // Each loop refreshes its own chain until it is refused, or a few times past the revoke.
      const refreshing = loops.map(async (chain, i) => {
        for (let step = 0; step < 100 && !(revoked && step > 2); step++) {
          const answer = await refresh(fast[(i + step) % 2]!, chain.at(-1)!.refresh_token);
          if (answer.status !== 200) return;
          chain.push(answer.body.data as TokenPair);
        }
      });
      await sleep(round % 5);
      const answer = await postJson(
        `${fast[round % 2]!.url}/api/v1/auth/revoke`,
        { token_type: 'all' },
        bearer(issuer![0]!.access_token).headers,
      );
      expect(answer.status).toBe(200);
      revoked = true;
      await Promise.all(refreshing);
      // Access tokens first: presenting a rotated refresh token would revoke its chain as reuse
      // and hide a pair that survived; only each chain's last refresh token is presented.
      const working: string[] = [];
      for (const [i, pair] of loops.flat().entries()) {
        const status = (await members(fast[i % 2]!, pair.access_token)).status;
        if (status !== 401) working.push(`access ${status}`);
      }
      for (const chain of loops) {
        const status = (await refresh(fast[1], chain.at(-1)!.refresh_token)).status;
        if (status !== 401) working.push(`refresh ${status}`);
      }
      expect({ round, working }).toEqual({ round, working: [] });
    }
  }, 60_000);
});

describe('refresh chains and issuance', () => {
  it('when a chain began more than REFRESH_CHAIN_MAX_DAYS (90) ago, then its refresh is 401', async () => {
    const client = await createTestClient(one.db);
    const old = await issueTokenPair(one, client);
    const young = await issueTokenPair(one, client);
    const day = 86_400_000;
    await one.db.apiToken.updateMany({
      where: { access_token_hash: sha256(old.access_token) },
      data: { chain_started_at: new Date(Date.now() - 90 * day - 1000) },
    });
    await one.db.apiToken.updateMany({
      where: { access_token_hash: sha256(young.access_token) },
      data: { chain_started_at: new Date(Date.now() - 90 * day + 60_000) },
    });
    const refused = await refresh(one, old.refresh_token);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('INVALID_TOKEN');
    // Near its end a chain still refreshes, but no refresh token outlives it.
    const near = await refresh(one, young.refresh_token);
    expect(near.status).toBe(200);
    expect(near.body.data.refresh_expires_in).toBeLessThanOrEqual(60);
    const stored = await one.db.apiToken.findUniqueOrThrow({
      where: { refresh_token_hash: sha256(near.body.data.refresh_token as string) },
    });
    expect(stored.refresh_expires_at.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it('when a client obtained 60 tokens in a minute, then the 61st is 429 with Retry-After, and another client is not held', async () => {
    const client = await createTestClient(one.db);
    const pair = await issueTokenPair(one, client);
    for (let i = 1; i < 40; i++) expect((await token(i % 2 ? one : two, client)).status).toBe(200);
    // Refreshes count too: token and refresh share the client's 60.
    let current = pair;
    for (let i = 40; i < 60; i++) {
      const answer = await refresh(i % 2 ? one : two, current.refresh_token);
      expect(answer.status).toBe(200);
      current = answer.body.data as TokenPair;
    }
    const refused = await token(two, client);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.body.retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused.body.retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.retryAfter));
    // A refused refresh leaves its refresh token usable once the minute is over.
    expect((await refresh(one, current.refresh_token)).status).toBe(429);
    await expectAccess(current, 200);
    const rfc = await fetch(`${one.url}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.client_key}:${client.client_secret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(rfc.status).toBe(429);
    expect(await rfc.json()).toMatchObject({ error: 'slow_down' });
    expect(Number(rfc.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const other = await createTestClient(one.db);
    expect((await token(one, other)).status).toBe(200);
    const rows = await one.db.apiToken.count({ where: { client_id: client.id } });
    expect(rows).toBe(60);
  });

  it('when a bearer token cannot be one of ours, then it is 401 without a token lookup', async () => {
    const client = await createTestClient(one.db);
    const pair = await issueTokenPair(one, client);
    const reads = async () => (await one.metrics.tokenReads.get()).values[0]?.value ?? 0;
    const before = await reads();
    const madeUp = [
      'x',
      'A'.repeat(43),
      'A'.repeat(49),
      `${pair.access_token.slice(0, -1)}${pair.access_token.endsWith('A') ? 'B' : 'A'}`,
      'A'.repeat(5000),
    ];
    for (const made of madeUp) {
      const answer = await members(one, made);
      expect(answer.status).toBe(401);
      expect(answer.body.error).toBe('INVALID_TOKEN');
    }
    expect(await reads()).toBe(before);
    expect((await members(one, pair.access_token)).status).toBe(200);
    expect(await reads()).toBeGreaterThan(before);
  });
});
