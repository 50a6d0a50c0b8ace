// Tokens end when the operator says so, on two gateways at once and within 1 s (a bound on the
// time, so this file runs in the timed group): `npm run clients -- rotate-secret | revoke-tokens |
// disable` end every access and refresh token of the client, and `enable` brings none back. A
// partner's "revoke all" against refreshes racing it, refresh chains and issuance:
// auth-refresh-chains.test.ts. See docs/decisions/0003-tokens.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { operatorCli } from '../support/operator-cli.js';
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

const clients = (...args: string[]) => operatorCli(env, 'clients', ...args);

const members = (gateway: RunningGateway, accessToken: string) =>
  getJson(`${gateway.url}/api/v1/members?limit=1`, bearer(accessToken));
const refresh = (gateway: RunningGateway, refreshToken: string) =>
  postJson(`${gateway.url}/api/v1/auth/refresh`, { refresh_token: refreshToken });

/** Both gateways answer the access token as `status` (after a warm-up that cached it). */
async function expectAccess(pair: TokenPair, status: number) {
  for (const gateway of [one, two])
    expect((await members(gateway, pair.access_token)).status).toBe(status);
}

/**
 * The pair is dead everywhere: its access token on both gateways, its refresh token on either
 * (403 while the client is disabled: it may not obtain tokens at all).
 */
async function expectDead(pair: TokenPair, refreshStatus = 401) {
  await expectAccess(pair, 401);
  expect((await refresh(two, pair.refresh_token)).status).toBe(refreshStatus);
}

/** Runs an operator command and proves its effect holds on both gateways within 1 s. */
async function withinOneSecond(
  command: () => Promise<unknown>,
  pair: TokenPair,
  refreshStatus = 401,
) {
  await command();
  const started = Date.now();
  await expectDead(pair, refreshStatus);
  expect(Date.now() - started).toBeLessThan(1000);
}

describe('operator commands end tokens on every gateway', () => {
  it('when the secret is rotated, then every access and refresh token of the client ends', async () => {
    const client = await createTestClient(one.db);
    const pairs = [await issueTokenPair(one, client), await issueTokenPair(two, client)];
    for (const pair of pairs) await expectAccess(pair, 200);
    await withinOneSecond(() => clients('rotate-secret', client.client_key), pairs[0]!);
    await expectDead(pairs[1]!);
  });

  it('when revoke-tokens is run, then every token ends and the secret still obtains new ones', async () => {
    const client = await createTestClient(one.db);
    const pair = await issueTokenPair(one, client);
    await expectAccess(pair, 200);
    await withinOneSecond(() => clients('revoke-tokens', client.client_key), pair);
    const fresh = await issueTokenPair(two, client);
    await expectAccess(fresh, 200);
  });

  it('when a client is disabled and enabled again, then none of its old tokens comes back', async () => {
    const client = await createTestClient(one.db);
    const pair = await issueTokenPair(one, client);
    await expectAccess(pair, 200);
    await withinOneSecond(() => clients('disable', client.client_key), pair, 403);
    await clients('enable', client.client_key);
    await expectDead(pair);
    await expectAccess(await issueTokenPair(one, client), 200);
  });
});
