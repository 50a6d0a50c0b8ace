// The throttle of the token endpoints against guessing: default 10 failed attempts a minute per
// IP address, and per client_key and IP address, shared by the three token endpoints and by every
// instance; never per client_key alone, so nobody who knows a key can lock its partner out.
// Requests leave from distinct loopback addresses (127.0.0.x), so each test has its own IPs.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../gateway/src/trust/client-secrets.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  createTestClient,
  issueTokenPair,
  startGateway,
  type RunningGateway,
  type TestClient,
  type TokenPair,
} from '../support/gateway.js';

const LIMIT = 10;
let env: TestEnvironment;
let one: RunningGateway;
let two: RunningGateway;
let nextHost = 10;

beforeAll(async () => {
  env = await createTestEnvironment();
  [one, two] = await Promise.all([startGateway(env), startGateway(env)]);
});

afterAll(async () => {
  await Promise.all([one?.close(), two?.close()]);
  await env?.destroy();
});

/** A fresh source address on the loopback network. */
const freshIp = () => `127.0.0.${nextHost++}`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

function post(
  from: string,
  url: string,
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', localAddress: from, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const token = (from: string, key: string, secret: string, gateway = one) =>
  post(
    from,
    `${gateway.url}/api/v1/auth/token`,
    JSON.stringify({ client_key: key, client_secret: secret }),
  );
const refresh = (from: string, refreshToken: string) =>
  post(from, `${one.url}/api/v1/auth/refresh`, JSON.stringify({ refresh_token: refreshToken }));
const oauth = (from: string, key: string, secret: string) =>
  post(from, `${one.url}/oauth/token`, 'grant_type=client_credentials', {
    'content-type': 'application/x-www-form-urlencoded',
    authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`,
  });

function expectThrottled(answer: Answer) {
  expect(answer.status).toBe(429);
  expect(answer.body).toMatchObject({ success: false, error: 'RATE_LIMIT_EXCEEDED' });
  expect(answer.body.retryAfter).toBeGreaterThanOrEqual(1);
  expect(answer.body.retryAfter).toBeLessThanOrEqual(60);
  expect(answer.headers['retry-after']).toBe(String(answer.body.retryAfter));
}

async function failTimes(times: number, attempt: (i: number) => Promise<Answer>) {
  for (let i = 0; i < times; i++) expect((await attempt(i)).status).toBe(401);
}

describe('throttle of /auth/token', () => {
  it("when someone sent 25 wrong secrets with a partner's key from one address, then the partner's secret and refresh token from another address are answered 200", async () => {
    const victim = await createTestClient(one.db);
    const pair = await issueTokenPair(one, victim);
    const attacker = freshIp();
    const answers = [];
    for (let i = 0; i < 25; i++) answers.push(await token(attacker, victim.client_key, 'guess'));
    expect(answers.slice(0, LIMIT).every((answer) => answer.status === 401)).toBe(true);
    expectThrottled(answers[24]!);
    const partner = freshIp();
    expect((await token(partner, victim.client_key, victim.client_secret)).status).toBe(200);
    expect((await refresh(partner, pair.refresh_token)).status).toBe(200);
    // The address that failed stays slowed down, the right secret included.
    expectThrottled(await token(attacker, victim.client_key, victim.client_secret));
  });

  it('when one client_key failed 10 times from many addresses, then its right secret from a new address is answered 200', async () => {
    const victim = await createTestClient(one.db);
    await failTimes(LIMIT, () => token(freshIp(), victim.client_key, 'guess'));
    expect((await token(freshIp(), victim.client_key, victim.client_secret)).status).toBe(200);
  });

  it('when one address failed 10 times with different keys, then it gets 429 for any client, and other addresses do not', async () => {
    const guesser = freshIp();
    await failTimes(LIMIT, (i) => token(guesser, `ck_guess_${i}`, 'guess'));
    const client = await createTestClient(one.db);
    expectThrottled(await token(guesser, client.client_key, client.client_secret));
    expect((await token(freshIp(), client.client_key, client.client_secret)).status).toBe(200);
  });

  it('when requests succeed, then they are not counted', async () => {
    const from = freshIp();
    const client = await createTestClient(one.db);
    for (let i = 0; i < LIMIT + 5; i++) {
      expect((await token(from, client.client_key, client.client_secret)).status).toBe(200);
    }
    expect((await token(from, client.client_key, 'wrong')).status).toBe(401);
  });

  it('when 30 partners ask for tokens at once from one address (one proxy), then every one is answered 200', async () => {
    const from = freshIp();
    const clients = await Promise.all(
      Array.from({ length: 3 * LIMIT }, () => createTestClient(one.db)),
    );
    const answers = await Promise.all(
      clients.map((client) => token(from, client.client_key, client.client_secret)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(clients.map(() => 200));
  });

  it("when 30 wrong secrets with a partner's key are sent at once from one address, then those past the limit are answered 429 and the partner's secret from another address 200", async () => {
    const victim = await createTestClient(one.db);
    const attacker = freshIp();
    const answers = await Promise.all(
      Array.from({ length: 3 * LIMIT }, (_, i) =>
        token(attacker, victim.client_key, `guess-${i}`, i % 2 === 0 ? one : two),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    // Each is counted per address and per key and address: at most LIMIT pass both counts.
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(LIMIT);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(2 * LIMIT);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
    for (const answer of answers.filter((a) => a.status === 429)) expectThrottled(answer);
    expect((await token(freshIp(), victim.client_key, victim.client_secret)).status).toBe(200);
  });

  it('when the failures went through one instance, then the other instance throttles too', async () => {
    const from = freshIp();
    await failTimes(LIMIT, (i) => token(from, `ck_other_${i}`, 'guess', one));
    const client = await createTestClient(one.db);
    expectThrottled(await token(from, client.client_key, client.client_secret, two));
  });
});

describe('throttle of /auth/refresh and /oauth/token', () => {
  it('when one address failed 10 refreshes, then its next refresh gets 429', async () => {
    const client = await createTestClient(one.db);
    const pair = await issueTokenPair(one, client);
    const from = freshIp();
    await failTimes(LIMIT, (i) => refresh(from, `not-a-refresh-token-${i}`));
    expectThrottled(await refresh(from, pair.refresh_token));
  });

  it("when a client's refresh tokens failed 10 times from many addresses, then its current one from another address is answered 200", async () => {
    const client: TestClient = await createTestClient(one.db);
    const pairs: TokenPair[] = [];
    for (let i = 0; i <= LIMIT; i++) pairs.push(await issueTokenPair(one, client));
    const current = pairs.pop()!;
    // Every other pair revoked: each refresh token presented below is a known, failing one.
    await one.db.apiToken.updateMany({
      where: { client_id: client.id, NOT: { access_token_hash: sha256(current.access_token) } },
      data: { revoked_at: new Date(), revoke_reason: 'revoked' },
    });
    await failTimes(LIMIT, (i) => refresh(freshIp(), pairs[i]!.refresh_token));
    expect((await refresh(freshIp(), current.refresh_token)).status).toBe(200);
  });

  it('when failures are spread over /auth/token and /oauth/token, then they add up and /oauth/token answers 429 in RFC shape', async () => {
    const from = freshIp();
    await failTimes(LIMIT / 2, (i) => token(from, `ck_mixed_${i}`, 'guess'));
    await failTimes(LIMIT / 2, (i) => oauth(from, `ck_mixed_${i}`, 'guess'));
    const client = await createTestClient(one.db);
    const answer = await oauth(from, client.client_key, client.client_secret);
    expect(answer.status).toBe(429);
    expect(answer.body).toEqual({ error: 'slow_down', error_description: expect.any(String) });
    expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
