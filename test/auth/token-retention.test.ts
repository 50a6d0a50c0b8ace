// Token rows do not grow with time: the worker deletes expired and revoked pairs once
// TOKEN_RETENTION_DAYS has passed (here about three minutes), and keeps every live one.
import { describe, expect, inject } from 'vitest';
import { readModelPool } from '#common/databases.js';
import { throttledLog } from '#common/log-throttle.js';
import { sha256 } from '../../gateway/src/trust/client-secrets.js';
import { startRetention } from '../../worker/src/retention.js';
import type { TestEnvironment } from '../support/environment.js';
import { gatewayTest } from '../support/fixtures.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueTokenPair,
  postJson,
  type RunningGateway,
  type TokenPair,
} from '../support/gateway.js';
import { runLogger } from '../support/run-logs.js';
import { eventually } from '../support/eventually.js';

const it = gatewayTest();

// Read by the helpers below as by the tests.
let env: TestEnvironment;
let gateway: RunningGateway;

it.beforeAll(({ env: made, gateway: started }) => {
  env = made;
  gateway = started;
});

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
const rowOf = (pair: TokenPair) =>
  gateway.db.apiToken.findUnique({ where: { access_token_hash: sha256(pair.access_token) } });

/** The worker's retention with TOKEN_RETENTION_DAYS of about three minutes. */
function startTokenRetention() {
  const config = env.config({ TOKEN_RETENTION_DAYS: '0.002' });
  expect(config.tokens.retentionMs).toBe(172_800);
  const logger = runLogger(inject('services').runId, 'retention-test');
  return startRetention({
    pool: readModelPool(gateway.db),
    retention: {
      tokensMs: config.tokens.retentionMs,
      auditMs: config.audit.retentionMs,
      webhookEventsMs: config.webhooks.retentionMs,
      usageMs: config.usage.retentionMs,
    },
    log: throttledLog(logger),
  });
}

const members = (pair: TokenPair) =>
  getJson(`${gateway.url}/api/v1/members?limit=1`, bearer(pair.access_token));
const refresh = (pair: TokenPair) =>
  postJson(`${gateway.url}/api/v1/auth/refresh`, { refresh_token: pair.refresh_token });

describe('token retention', () => {
  it('when expired and revoked rows are older than TOKEN_RETENTION_DAYS, then the worker deletes them and keeps the live ones', async () => {
    const client = await createTestClient(gateway.db);
    const [live, expired, revokedLongAgo, revokedLately, rotated] = await Promise.all(
      [0, 1, 2, 3, 4].map(() => issueTokenPair(gateway, client)),
    );
    const hash = (pair: TokenPair) => sha256(pair.access_token);
    await gateway.db.apiToken.update({
      where: { access_token_hash: hash(expired!) },
      data: { access_expires_at: minutesAgo(130), refresh_expires_at: minutesAgo(10) },
    });
    for (const pair of [revokedLongAgo!, revokedLately!]) {
      const answer = await postJson(
        `${gateway.url}/api/v1/auth/revoke`,
        { token_type: 'current' },
        bearer(pair.access_token).headers,
      );
      expect(answer.status).toBe(200);
    }
    await gateway.db.apiToken.update({
      where: { access_token_hash: hash(revokedLongAgo!) },
      data: { revoked_at: minutesAgo(10) },
    });
    const refreshed = await postJson(`${gateway.url}/api/v1/auth/refresh`, {
      refresh_token: rotated!.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    await gateway.db.apiToken.update({
      where: { access_token_hash: hash(rotated!) },
      data: { rotated_at: minutesAgo(10), revoked_at: minutesAgo(10) },
    });

    const retention = startTokenRetention();
    try {
      await eventually(async () => {
        expect(await rowOf(expired!)).toBeNull();
        expect(await rowOf(revokedLongAgo!)).toBeNull();
        expect(await rowOf(rotated!)).toBeNull();
      }, 10_000);
    } finally {
      retention.stop();
    }
    // Revoked two minutes ago at most: kept until its retention has passed too.
    expect(await rowOf(revokedLately!)).not.toBeNull();
    expect(await rowOf(live!)).not.toBeNull();
    const fresh = refreshed.body.data as TokenPair;
    expect(await rowOf(fresh)).not.toBeNull();
    for (const pair of [live!, fresh]) {
      expect(
        (await getJson(`${gateway.url}/api/v1/members?limit=1`, bearer(pair.access_token))).status,
      ).toBe(200);
    }
  });

  it("when a rotated refresh token comes back after its row was purged, then its chain's current pair is revoked all the same, and the chain leaves nothing behind", async () => {
    const client = await createTestClient(gateway.db);
    const first = await issueTokenPair(gateway, client);
    const answer = await refresh(first);
    expect(answer.status).toBe(200);
    const current = answer.body.data as TokenPair;
    await gateway.db.apiToken.update({
      where: { access_token_hash: sha256(first.access_token) },
      data: { rotated_at: minutesAgo(10), revoked_at: minutesAgo(10) },
    });
    const retention = startTokenRetention();
    try {
      await eventually(async () => expect(await rowOf(first)).toBeNull(), 10_000);
    } finally {
      retention.stop();
    }
    expect((await members(current)).status).toBe(200);

    const replayed = await refresh(first);
    expect(replayed.status).toBe(401);
    expect(replayed.body.error).toBe('INVALID_TOKEN');
    expect((await members(current)).status).toBe(401);
    expect((await refresh(current)).status).toBe(401);

    // Nothing but the chain's rows was kept for this, and they go as any revoked row does.
    const { chain_id } = (await rowOf(current))!;
    await gateway.db.apiToken.updateMany({
      where: { chain_id },
      data: { revoked_at: minutesAgo(10) },
    });
    const again = startTokenRetention();
    try {
      await eventually(
        async () => expect(await gateway.db.apiToken.count({ where: { chain_id } })).toBe(0),
        10_000,
      );
    } finally {
      again.stop();
    }
  });
});
