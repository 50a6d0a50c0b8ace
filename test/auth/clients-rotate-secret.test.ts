// `npm run clients -- rotate-secret KEY` as the operator runs it, on two gateways: rotated again
// during an overlap, the eldest secret ends at once and the one it replaced overlaps; without
// --overlap the old secret and every token end at once; an overlap that is not a duration of at
// most 168h is refused. The webhook subscriptions the old secret's tokens made, and did not move
// since, are disabled `credentials-ended` when the overlap ends (by the worker, or at once by
// end-previous-secret). No assertion here times anything; overlaps ending within 1 s are
// clients-rotate-overlap.timed.test.ts's, in the timed group. See docs/decisions/0003-tokens.md.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
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
import { operatorCli } from '../support/operator-cli.js';
import { noteCredentials } from '../support/run-logs.js';
import { LOCAL_WEBHOOKS } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { startWebhookWorker } from '../support/worker.js';

let env: TestEnvironment;
let one: RunningGateway;
let two: RunningGateway;

// Hundreds of token requests and refused calls from one address: neither the issuance limit nor
// the failed-attempt throttle (tested elsewhere) stands in the way here.
const UNTHROTTLED = {
  AUTH_FAILED_ATTEMPTS_PER_MINUTE: '1000000',
  TOKEN_ISSUE_PER_MINUTE: '1000000',
  RATE_LIMIT_PER_MINUTE: '1000000',
  RATE_LIMIT_PER_HOUR: '1000000',
};

beforeAll(async () => {
  env = await createTestEnvironment();
  const settings = { ...UNTHROTTLED, ...LOCAL_WEBHOOKS };
  [one, two] = await Promise.all([startGateway(env, settings), startGateway(env, settings)]);
});

afterAll(async () => {
  await Promise.all([one?.close(), two?.close()]);
  await env?.destroy();
});

interface Rotated {
  client_secret: string;
  previous_secret_until: string | null;
}

async function rotate(client: TestClient, ...options: string[]): Promise<Rotated> {
  const out = await operatorCli(
    env,
    'clients',
    'rotate-secret',
    client.client_key,
    ...options,
    '--json',
  );
  const rotated = JSON.parse(out) as Rotated;
  noteCredentials(inject('services').runId, rotated.client_secret);
  return rotated;
}

const tokenStatus = async (gateway: RunningGateway, key: string, secret: string) =>
  (await postJson(`${gateway.url}/api/v1/auth/token`, { client_key: key, client_secret: secret }))
    .status;
const accessStatus = async (gateway: RunningGateway, pair: TokenPair) =>
  (await getJson(`${gateway.url}/api/v1/members?limit=1`, bearer(pair.access_token))).status;

/** The statuses of a secret and of pairs on both gateways (the cached copies warmed first). */
async function statuses(client: TestClient, secret: string, pairs: TokenPair[]) {
  const seen: number[] = [];
  for (const gateway of [one, two]) {
    seen.push(await tokenStatus(gateway, client.client_key, secret));
    for (const pair of pairs) seen.push(await accessStatus(gateway, pair));
  }
  return seen;
}

describe('rotate-secret', () => {
  it('when the secret is rotated again during an overlap, then the eldest secret ends at once and the one it replaced overlaps', async () => {
    const client = await createTestClient(one.db);
    const first = await issueTokenPair(one, client);
    const second = await rotate(client, '--overlap', '1h');
    const secondPair = await issueTokenPair(one, {
      ...client,
      client_secret: second.client_secret,
    });
    const third = await rotate(client, '--overlap', '1h');
    expect(await statuses(client, client.client_secret, [first])).toEqual([401, 401, 401, 401]);
    expect(await statuses(client, second.client_secret, [secondPair])).toEqual(Array(4).fill(200));
    expect(await tokenStatus(two, client.client_key, third.client_secret)).toBe(200);
    // The operator's list tells when the previous secret ends, and shows no secret's HMAC.
    const listed = (
      JSON.parse(await operatorCli(env, 'clients', 'list', '--json')) as object[]
    ).find((c) => (c as { client_key: string }).client_key === client.client_key);
    expect(listed).toMatchObject({ previous_secret_until: third.previous_secret_until });
    expect(Object.keys(listed!).filter((key) => key.includes('hash'))).toEqual([]);
  }, 60_000);

  it('when rotated without --overlap, then it works as before: the old secret and every token end at once', async () => {
    const client = await createTestClient(one.db);
    const pair = await issueTokenPair(one, client);
    const rotated = await rotate(client);
    expect(rotated.previous_secret_until).toBeNull();
    expect(await statuses(client, client.client_secret, [pair])).toEqual([401, 401, 401, 401]);
    expect(await tokenStatus(two, client.client_key, rotated.client_secret)).toBe(200);
  });

  it('when the overlap is not a duration of at most 168h, then the CLI refuses it and nothing changes', async () => {
    const client = await createTestClient(one.db);
    for (const overlap of ['0s', '169h', '2d', 'soon']) {
      await expect(
        operatorCli(env, 'clients', 'rotate-secret', client.client_key, '--overlap', overlap),
      ).rejects.toThrow(/--overlap must be a duration/);
    }
    expect(await tokenStatus(one, client.client_key, client.client_secret)).toBe(200);
  });
});

describe('webhook subscriptions when an overlap ends', () => {
  const partner = () => createTestClient(one.db, { scopes: ['members:read', 'webhooks:manage'] });
  const webhooks = `/api/v1/webhooks`;
  // Nothing listens there, and no event is recorded in this file: no delivery is tried.
  const target = (path: string) => `http://127.0.0.1:8080/${path}`;
  async function subscribe(token: string, path: string): Promise<number> {
    const body = { url: target(path), types: ['members'] };
    const answer = await postJson(`${one.url}${webhooks}`, body, bearer(token).headers);
    expect(answer.status).toBe(201);
    return answer.body.data.id as number;
  }
  const states = async (ids: Record<string, number>) => {
    const rows = await one.db.webhookSubscription.findMany({
      where: { id: { in: Object.values(ids) } },
      select: { id: true, disabled_reason: true, enabled: true },
    });
    const byId = new Map(
      rows.map((row) => [row.id, row.enabled ? 'enabled' : row.disabled_reason]),
    );
    return Object.fromEntries(Object.entries(ids).map(([name, id]) => [name, byId.get(id)]));
  };

  it('when the overlap runs out, then the worker disables those the old secret made, even during the overlap, and leaves those made or moved under the new one', async () => {
    const client = await partner();
    const old = (await issueTokenPair(one, client)).access_token;
    const ids = { tap: await subscribe(old, 'tap'), moved: await subscribe(old, 'moved') };
    const rotated = await rotate(client, '--overlap', '10s');
    const fresh = (await issueTokenPair(two, { ...client, client_secret: rotated.client_secret }))
      .access_token;
    const patch = await getJson(`${two.url}${webhooks}/${ids.moved}`, {
      method: 'PATCH',
      headers: { ...bearer(fresh).headers, 'content-type': 'application/json' },
      body: JSON.stringify({ url: target('moved-again') }),
    });
    expect(patch.status).toBe(200);
    const all = {
      ...ids,
      late: await subscribe(old, 'late'),
      made: await subscribe(fresh, 'made'),
    };
    // The old secret still lives: nothing is disabled yet.
    expect(await states(all)).toEqual({
      tap: 'enabled',
      moved: 'enabled',
      late: 'enabled',
      made: 'enabled',
    });

    const worker = await startWebhookWorker(env, LOCAL_WEBHOOKS);
    try {
      await sleep(Math.max(0, Date.parse(rotated.previous_secret_until!) - Date.now()));
      await eventually(
        async () =>
          expect(await states(all)).toEqual({
            tap: 'credentials-ended',
            moved: 'enabled',
            late: 'credentials-ended',
            made: 'enabled',
          }),
        5000,
      );
    } finally {
      await worker.close();
    }
    const audit = await one.db.operatorAudit.findMany({
      where: { client_key: client.client_key, action: 'webhooks.disable' },
      select: { source: true, target: true },
      orderBy: { target: 'asc' },
    });
    expect(audit).toEqual(
      [all.tap, all.late]
        .map((id) => ({ source: 'worker', target: `subscription ${id}: credentials-ended` }))
        .sort((a, b) => a.target.localeCompare(b.target)),
    );
  });

  it('when end-previous-secret is run, then those the old secret made are disabled at once', async () => {
    const client = await partner();
    const old = (await issueTokenPair(one, client)).access_token;
    const tap = await subscribe(old, 'ended-tap');
    const rotated = await rotate(client, '--overlap', '1h');
    const fresh = (await issueTokenPair(one, { ...client, client_secret: rotated.client_secret }))
      .access_token;
    const made = await subscribe(fresh, 'ended-made');

    const out = await operatorCli(env, 'clients', 'end-previous-secret', client.client_key);
    expect(await states({ tap, made })).toEqual({ tap: 'credentials-ended', made: 'enabled' });
    expect(out).toContain(`webhook subscriptions disabled (credentials-ended): ${tap};`);
  });
});
