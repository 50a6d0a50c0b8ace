// A client secret rotated with an overlap, driven from outside as the operator does it
// (`npm run clients -- rotate-secret KEY --overlap 10s`), on two gateways: a partner that switches
// to the new secret at any moment of the overlap never gets a failed token request; once the
// overlap ends, the old secret is 401 and every token it issued ends, on both gateways within
// 1 s; `end-previous-secret` ends the overlap at once. Bounds on the time: this file runs in the
// timed group. A second rotation, one without an overlap, overlaps refused, and the webhook
// subscriptions an ended overlap disables: clients-rotate-secret.test.ts. See
// docs/decisions/0003-tokens.md.
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
import { eventually } from '../support/eventually.js';

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
  [one, two] = await Promise.all([startGateway(env, UNTHROTTLED), startGateway(env, UNTHROTTLED)]);
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

/** The standard endpoint's client_credentials grant, HTTP Basic, as OAuth libraries call it. */
const oauthStatus = async (gateway: RunningGateway, key: string, secret: string) =>
  (
    await getJson(`${gateway.url}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    })
  ).status;
const tokenStatus = async (gateway: RunningGateway, key: string, secret: string) =>
  (await postJson(`${gateway.url}/api/v1/auth/token`, { client_key: key, client_secret: secret }))
    .status;
const accessStatus = async (gateway: RunningGateway, pair: TokenPair) =>
  (await getJson(`${gateway.url}/api/v1/members?limit=1`, bearer(pair.access_token))).status;
const refreshStatus = async (gateway: RunningGateway, pair: TokenPair) =>
  (await postJson(`${gateway.url}/api/v1/auth/refresh`, { refresh_token: pair.refresh_token }))
    .status;

/** The statuses of a secret and of pairs on both gateways (the cached copies warmed first). */
async function statuses(client: TestClient, secret: string, pairs: TokenPair[]) {
  const seen: number[] = [];
  for (const gateway of [one, two]) {
    seen.push(await tokenStatus(gateway, client.client_key, secret));
    for (const pair of pairs) seen.push(await accessStatus(gateway, pair));
  }
  return seen;
}

/**
 * A partner asking for a token every 50 ms, on both gateways in turn, with the old secret until
 * `switchAt`, then with the new one, until `stopAt`. Returns each answer with its secret.
 */
async function partnerLoop(
  client: TestClient,
  secrets: { old: string; next: Promise<string> },
  moments: { switchAt: () => number; stopAt: () => number },
) {
  const answers: { secret: 'old' | 'new'; status: number; at: number }[] = [];
  let next: string | null = null;
  void secrets.next.then((secret) => (next = secret));
  for (let i = 0; Date.now() < moments.stopAt(); i++) {
    const switched = next !== null && Date.now() >= moments.switchAt();
    const status = await tokenStatus(
      i % 2 ? two : one,
      client.client_key,
      switched ? next! : secrets.old,
    );
    answers.push({ secret: switched ? 'new' : 'old', status, at: Date.now() });
    await sleep(50);
  }
  return answers;
}

describe('rotate-secret with an overlap', () => {
  it('when a partner switches secrets at any moment of the overlap, then no token request fails; when it ends, the old secret and its tokens end on both gateways within 1 s', async () => {
    const client = await createTestClient(one.db);
    const before = await issueTokenPair(one, client);
    let until = Infinity;
    let rotatedAt = Infinity;
    let resolveNext!: (secret: string) => void;
    const next = new Promise<string>((resolve) => (resolveNext = resolve));
    // Three partners of the client: one switches as soon as it has the new secret, one midway,
    // one shortly before the overlap ends; all keep asking for tokens past its end.
    const switchers = [0, 0.5, 0.85].map((share) =>
      partnerLoop(
        client,
        { old: client.client_secret, next },
        {
          switchAt: () => rotatedAt + share * (until - rotatedAt),
          stopAt: () => until + 1500,
        },
      ),
    );
    await sleep(300);
    const rotated = await rotate(client, '--overlap', '10s');
    rotatedAt = Date.now();
    until = Date.parse(rotated.previous_secret_until!);
    expect(until - rotatedAt).toBeGreaterThan(3000);
    resolveNext(rotated.client_secret);

    // During the overlap both secrets issue tokens, and every token works on both gateways.
    const duringOld = await issueTokenPair(two, client);
    const duringNew = await issueTokenPair(one, {
      ...client,
      client_secret: rotated.client_secret,
    });
    const oldPairs = [before, duringOld];
    await sleep(Math.max(0, until - 2000 - Date.now()));
    expect(await statuses(client, client.client_secret, [...oldPairs, duringNew])).toEqual(
      Array(8).fill(200),
    );

    await sleep(Math.max(0, until - Date.now()));
    await eventually(
      async () =>
        expect(await statuses(client, client.client_secret, oldPairs)).toEqual(Array(6).fill(401)),
      3000,
      20,
    );
    for (const pair of oldPairs) expect(await refreshStatus(one, pair)).toBe(401);
    expect(Date.now() - until).toBeLessThan(1000);

    // The new secret and its tokens go on.
    for (const gateway of [one, two]) {
      expect(await accessStatus(gateway, duringNew)).toBe(200);
      expect(await tokenStatus(gateway, client.client_key, rotated.client_secret)).toBe(200);
    }
    expect(await refreshStatus(two, duringNew)).toBe(200);

    const answers = await Promise.all(switchers);
    answers.forEach((made, i) => {
      expect(made.filter((a) => a.status !== 200)).toEqual([]);
      // Each asked before the rotation, with each secret during the overlap, and after it; the
      // first switches as soon as it has the new secret, so only the others must have asked
      // with the old one once the rotation had been answered.
      expect(made.some((a) => a.at < rotatedAt)).toBe(true);
      if (i > 0) expect(made.some((a) => a.secret === 'old' && a.at > rotatedAt)).toBe(true);
      expect(made.some((a) => a.secret === 'new' && a.at < until)).toBe(true);
      expect(made.some((a) => a.at > until + 500)).toBe(true);
    });

    const audit = await one.db.operatorAudit.findMany({
      where: { client_key: client.client_key, action: 'clients.rotate-secret' },
    });
    expect(audit).toEqual([
      expect.objectContaining({
        source: 'cli',
        target: `previous secret until ${rotated.previous_secret_until}`,
      }),
    ]);
  });

  it('when end-previous-secret is run during an overlap, then the old secret and its tokens end on both gateways within 1 s', async () => {
    const client = await createTestClient(one.db);
    const before = await issueTokenPair(one, client);
    const rotated = await rotate(client, '--overlap', '1h');
    const renewed = { ...client, client_secret: rotated.client_secret };
    const during = await issueTokenPair(two, client);
    const fresh = await issueTokenPair(one, renewed);
    expect(await statuses(client, client.client_secret, [before, during, fresh])).toEqual(
      Array(8).fill(200),
    );

    expect(await oauthStatus(two, client.client_key, client.client_secret)).toBe(200);

    await operatorCli(env, 'clients', 'end-previous-secret', client.client_key);
    const ended = Date.now();
    expect(await statuses(client, client.client_secret, [before, during])).toEqual(
      Array(6).fill(401),
    );
    expect(await refreshStatus(two, during)).toBe(401);
    expect(Date.now() - ended).toBeLessThan(1000);
    expect(await oauthStatus(one, client.client_key, client.client_secret)).toBe(401);
    expect(await statuses(client, rotated.client_secret, [fresh])).toEqual(Array(4).fill(200));
    expect(await oauthStatus(two, client.client_key, rotated.client_secret)).toBe(200);
    expect(
      await one.db.operatorAudit.count({
        where: { client_key: client.client_key, action: 'clients.end-previous-secret' },
      }),
    ).toBe(1);
  });
});
