// A token's check is keyed under SECRETS_KEY (docs/decisions/0003-tokens.md): a token of the right
// shape that this API did not make is refused without a token lookup, whoever shaped it; tokens
// of the earlier, unkeyed form stay valid while any of them can still be used, so an upgrade logs
// no partner out; while a token the earlier release issued is still valid, that release may still
// answer beside this one, and tokens are issued in the form it accepts. Lookups are counted by
// the gateway's own token-read metric.
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { sha256 } from '../../gateway/src/trust/client-secrets.js';
import { gatewayTest } from '../support/fixtures.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueTokenPair,
  postJson,
  startGateway,
  type RunningGateway,
  type TestClient,
} from '../support/gateway.js';

const it = gatewayTest();

const members = (via: RunningGateway, token: string) =>
  getJson(`${via.url}/api/v1/members?limit=1`, bearer(token));
const refresh = (via: RunningGateway, token: string) =>
  postJson(`${via.url}/api/v1/auth/refresh`, { refresh_token: token });
const tokenReads = async (via: RunningGateway) =>
  (await via.metrics.tokenReads.get()).values[0]?.value ?? 0;

/** The earlier form: 43 random characters and 6 of their SHA-256, which anyone can compute. */
const earlierCheck = (random: string) =>
  createHash('sha256').update(random).digest('base64url').slice(0, 6);
function earlierForm(): string {
  const random = randomBytes(32).toString('base64url');
  return random + earlierCheck(random);
}
/** The earlier release's own check of a token it is shown: nothing else passes it. */
const isEarlierForm = (token: string) =>
  token.length === 49 && earlierCheck(token.slice(0, 43)) === token.slice(43);

describe('keyed token checks', () => {
  it('when a well-formed token we did not make is presented, then it is 401 without a token lookup', async ({
    gateway,
  }) => {
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

  /** A pair as the earlier release saved it: it never names keyed_check or the issuing release. */
  async function earlierReleasePair(via: RunningGateway, clientId: number, accessLivesMs: number) {
    const pair = { access_token: earlierForm(), refresh_token: earlierForm() };
    await via.db.apiToken.create({
      data: {
        client_id: clientId,
        chain_id: randomUUID(),
        access_token_hash: sha256(pair.access_token),
        refresh_token_hash: sha256(pair.refresh_token),
        scopes: ['members:list', 'members:read'],
        access_expires_at: new Date(Date.now() + accessLivesMs),
        refresh_expires_at: new Date(Date.now() + 86_400_000),
      },
    });
    return pair;
  }

  /**
   * A refresh of `earlier` and a token request on `via`: both answered, and each token new of the
   * earlier form or not, as `earlierForm` says.
   */
  async function renewAndRequest(
    via: RunningGateway,
    client: TestClient,
    earlier: { refresh_token: string },
    earlierForm: boolean,
  ) {
    const renewed = await refresh(via, earlier.refresh_token);
    expect(renewed.status).toBe(200);
    const next = renewed.body.data as { access_token: string; refresh_token: string };
    const requested = await issueTokenPair(via, client);
    for (const token of [next.access_token, next.refresh_token, requested.access_token]) {
      expect(isEarlierForm(token), token).toBe(earlierForm);
    }
    return { next, requested };
  }

  it('when a partner holds a pair of the earlier release, then it still works, and while that release may still run every pair is issued in the form it accepts', async ({
    env,
    gateway,
  }) => {
    const client = await createTestClient(gateway.db);
    const earlier = await earlierReleasePair(gateway, client.id, 3_600_000);
    // A gateway started during the rolling upgrade, on a database holding the pair.
    const upgraded = await startGateway(env);
    try {
      expect((await members(upgraded, earlier.access_token)).status).toBe(200);
      const { next, requested } = await renewAndRequest(upgraded, client, earlier, true);
      expect((await members(upgraded, next.access_token)).status).toBe(200);
      expect((await members(upgraded, requested.access_token)).status).toBe(200);
      expect((await refresh(upgraded, next.refresh_token)).status).toBe(200);
      expect((await refresh(upgraded, earlier.refresh_token)).status).toBe(401);
    } finally {
      await upgraded.close();
    }
  });

  it('when a pair of the earlier form is saved after a gateway last read how long such pairs live, then that gateway still takes it once the older ones expire', async ({
    env,
    gateway,
  }) => {
    const client = await createTestClient(gateway.db);
    const shortLived = await earlierReleasePair(gateway, client.id, 1500);
    const upgraded = await startGateway(env);
    try {
      // The gateway reads the horizon: the last earlier-form access token ends within 1.5 s.
      await gateway.db.apiToken.updateMany({
        where: { keyed_check: false, access_token_hash: { not: sha256(shortLived.access_token) } },
        data: { access_expires_at: new Date(Date.now() - 1000) },
      });
      expect((await members(upgraded, shortLived.access_token)).status).toBe(200);
      const later = await earlierReleasePair(gateway, client.id, 3_600_000);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect((await members(upgraded, shortLived.access_token)).status).toBe(401);
      expect((await members(upgraded, later.access_token)).status).toBe(200);
    } finally {
      await upgraded.close();
    }
  });

  it('when every access token of the earlier release has expired, then pairs are keyed again and its refresh tokens still renew', async ({
    env,
    gateway,
  }) => {
    const client = await createTestClient(gateway.db);
    await gateway.db.apiToken.updateMany({
      where: { issued_by_keyed_release: false },
      data: { access_expires_at: new Date(Date.now() - 1000) },
    });
    const earlier = await earlierReleasePair(gateway, client.id, -1000);
    const upgraded = await startGateway(env);
    try {
      const { next, requested } = await renewAndRequest(upgraded, client, earlier, false);
      expect((await members(upgraded, next.access_token)).status).toBe(200);
      expect((await members(upgraded, requested.access_token)).status).toBe(200);
    } finally {
      await upgraded.close();
    }
  });
});
