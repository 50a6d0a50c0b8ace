// Secrets and tokens never leave in logs or error bodies, not even when the token store fails
// (the 500 SERVER_ERROR rows of the three auth endpoints).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#common/logger.js';
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
let gateway: RunningGateway;
let client: TestClient;
let pair: TokenPair;
const logLines: string[] = [];
const bodies: string[] = [];

beforeAll(async () => {
  env = await createTestEnvironment();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  gateway = await startGateway(
    env,
    { AUTH_FAILED_ATTEMPTS_PER_MINUTE: '10000' },
    { logger: createLogger({ level: 'trace', name: 'gateway-test', destination: sink }) },
  );
  client = await createTestClient(gateway.db);
  pair = await issueTokenPair(gateway, client);
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

async function record<T extends { body: unknown }>(response: Promise<T>): Promise<T> {
  const answered = await response;
  bodies.push(JSON.stringify(answered.body));
  return answered;
}

const tokenRequest = (secret: string) =>
  record(
    postJson(`${gateway.url}/api/v1/auth/token`, {
      client_key: client.client_key,
      client_secret: secret,
    }),
  );
const refreshRequest = (refreshToken: string) =>
  record(postJson(`${gateway.url}/api/v1/auth/refresh`, { refresh_token: refreshToken }));
const oauthRequest = (secret: string) =>
  record(
    getJson(`${gateway.url}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.client_key}:${secret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    }),
  );

describe('secrets in error bodies', () => {
  it('when credentials or tokens are wrong or malformed, then no error body repeats them', async () => {
    const guessed = 'guessed-secret-value-0123456789';
    expect((await tokenRequest(guessed)).status).toBe(401);
    expect((await tokenRequest(`${client.client_secret}${'z'.repeat(600)}`)).status).toBe(400);
    expect((await oauthRequest(guessed)).status).toBe(401);
    expect((await refreshRequest(pair.access_token)).status).toBe(401);
    const joined = bodies.join('\n');
    for (const secret of [guessed, client.client_secret, pair.access_token]) {
      expect(joined).not.toContain(secret);
    }
  });
});

describe('when the token store fails', () => {
  beforeAll(async () => {
    // A table that is gone is not a dependency being down: these must be plain 500s.
    await gateway.db.$executeRawUnsafe('ALTER TABLE api_tokens RENAME TO api_tokens_away');
  });

  it.each([
    ['/auth/token', () => tokenRequest(client.client_secret)],
    ['/auth/refresh', () => refreshRequest(pair.refresh_token)],
    [
      '/auth/revoke',
      () =>
        record(
          postJson(`${gateway.url}/api/v1/auth/revoke`, {}, bearer(pair.access_token).headers),
        ),
    ],
  ])(
    'when %s is called, then it answers 500 SERVER_ERROR showing no SQL, stack or secret',
    async (_path, call) => {
      const { status, body } = await call();
      expect(status).toBe(500);
      expect(body).toMatchObject({ success: false, error: 'SERVER_ERROR' });
      const text = JSON.stringify(body);
      expect(text).not.toMatch(/api_tokens|prisma|\bat .*\.ts|stack/i);
    },
  );

  it('then the log tells of the failures and holds no secret or token', async () => {
    await record(getJson(`${gateway.url}/api/v1/members`, bearer(pair.access_token)));
    const log = logLines.join('');
    expect(log).toContain('request failed');
    for (const secret of [client.client_secret, pair.access_token, pair.refresh_token]) {
      expect(log).not.toContain(secret);
    }
    expect(bodies.join('\n')).not.toContain(client.client_secret);
  });
});
