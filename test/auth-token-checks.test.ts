// A token's check is keyed under SECRETS_KEY (docs/decisions/0003-tokens.md): a token of the right
// shape that this API did not make is refused without a token lookup, whoever shaped it; tokens
// of the earlier, unkeyed form stay valid while any of them can still be used, so an upgrade logs
// no partner out. Lookups are counted by the gateway's own token-read metric.
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../gateway/src/trust/client-secrets.js';
import { createTestEnvironment, type TestEnvironment } from './support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueTokenPair,
  postJson,
  startGateway,
  type RunningGateway,
} from './support/gateway.js';

let env: TestEnvironment;
let gateway: RunningGateway;

beforeAll(async () => {
  env = await createTestEnvironment();
  gateway = await startGateway(env);
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

const members = (via: RunningGateway, token: string) =>
  getJson(`${via.url}/api/v1/members?limit=1`, bearer(token));
const refresh = (via: RunningGateway, token: string) =>
  postJson(`${via.url}/api/v1/auth/refresh`, { refresh_token: token });
const tokenReads = async (via: RunningGateway) =>
  (await via.metrics.tokenReads.get()).values[0]?.value ?? 0;

/** The earlier form: 43 random characters and 6 of their SHA-256, which anyone can compute. */
function earlierForm(): string {
  const random = randomBytes(32).toString('base64url');
  return random + createHash('sha256').update(random).digest('base64url').slice(0, 6);
}

describe('keyed token checks', () => {
  it('when a well-formed token we did not make is presented, then it is 401 without a token lookup', async () => {
    const client = await createTestClient(gateway.db);
    const pair = await issueTokenPair(gateway, client);
    const otherKey = randomBytes(32);
    const random = randomBytes(32).toString('base64url');
    const madeUp = [
      earlierForm(),
      earlierForm(),
      // Checked under a key that is not ours.
      random + createHmac('sha256', otherKey).update(random).digest('base64url').slice(0, 6),
      `${pair.access_token.slice(0, 20)}${pair.access_token.slice(20, 21) === 'A' ? 'B' : 'A'}${pair.access_token.slice(21)}`,
    ];
    const before = await tokenReads(gateway);
    for (const token of madeUp) {
      const answer = await members(gateway, token);
      expect(answer.status).toBe(401);
      expect(answer.body.error).toBe('INVALID_TOKEN');
    }
    expect(await tokenReads(gateway)).toBe(before);
    for (const token of madeUp) expect((await refresh(gateway, token)).status).toBe(401);
    expect((await members(gateway, pair.access_token)).status).toBe(200);
    expect(await tokenReads(gateway)).toBeGreaterThan(before);
  });

  it('when a partner holds a pair of the earlier form, then it still works and its refresh gives a keyed pair', async () => {
    const client = await createTestClient(gateway.db);
    const earlier = { access_token: earlierForm(), refresh_token: earlierForm() };
    await gateway.db.apiToken.create({
      data: {
        client_id: client.id,
        chain_id: randomUUID(),
        access_token_hash: sha256(earlier.access_token),
        refresh_token_hash: sha256(earlier.refresh_token),
        scopes: ['members:list', 'members:read'],
        access_expires_at: new Date(Date.now() + 3_600_000),
        refresh_expires_at: new Date(Date.now() + 86_400_000),
      },
    });
    // A gateway started after the upgrade, on a database holding the pair.
    const upgraded = await startGateway(env);
    try {
      expect((await members(upgraded, earlier.access_token)).status).toBe(200);
      const renewed = await refresh(upgraded, earlier.refresh_token);
      expect(renewed.status).toBe(200);
      const next = renewed.body.data as { access_token: string; refresh_token: string };
      expect((await members(upgraded, next.access_token)).status).toBe(200);
      expect((await refresh(upgraded, earlier.refresh_token)).status).toBe(401);
    } finally {
      await upgraded.close();
    }
  });
});
