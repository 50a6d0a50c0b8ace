// POST /oauth/token as standard OAuth 2.0 clients use it (RFC 6749 §4.4, §6, §5.2): form body,
// HTTP Basic or form client authentication, RFC-shaped answers and errors.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { clientTest } from '../support/fixtures.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueTokenPair,
  postJson,
  type RunningGateway,
  type TestClient,
} from '../support/gateway.js';

const run = promisify(execFile);
const it = clientTest(
  { AUTH_FAILED_ATTEMPTS_PER_MINUTE: '10000' },
  { scopes: ['members:list', 'members:read'] },
);

// Read by the helpers below as by the tests.
let gateway: RunningGateway;
let client: TestClient;

it.beforeAll(({ gateway: started, client: made }) => {
  gateway = started;
  client = made;
});

const basic = (key: string, secret: string) =>
  `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;

function postForm(form: Record<string, string>, headers: Record<string, string> = {}) {
  return getJson(`${gateway.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

function expectOAuthError(response: { status: number; body: any }, status: number, error: string) {
  expect(response.status).toBe(status);
  expect(response.body).toEqual({ error, error_description: expect.any(String) });
}

describe('POST /oauth/token grant_type=client_credentials', () => {
  it('when curl sends -u KEY:SECRET -d grant_type=client_credentials, then it answers an RFC 6749 token that works on /api/v1/members', async () => {
    const { stdout } = await run('curl', [
      '-sS',
      '-D',
      '-',
      '-u',
      `${client.client_key}:${client.client_secret}`,
      '-d',
      'grant_type=client_credentials',
      `${gateway.url}/oauth/token`,
    ]);
    const [head = '', json = ''] = stdout.split(/\r\n\r\n/);
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    expect(head).toMatch(/^cache-control: no-store/im);
    expect(head).toMatch(/^pragma: no-cache/im);
    const body = JSON.parse(json) as Record<string, unknown>;
    expect(body).toEqual({
      access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/),
      token_type: 'Bearer',
      expires_in: expect.any(Number),
      scope: 'members:list members:read',
    });
    expect(body.expires_in).toBeGreaterThan(7190);
    expect(body.expires_in).toBeLessThanOrEqual(7200);
    const members = await getJson(
      `${gateway.url}/api/v1/members`,
      bearer(body.access_token as string),
    );
    expect(members.status).toBe(200);
    expect(members.body.success).toBe(true);
  });

  it('when the credentials are form fields, then it answers a token as well', async () => {
    const { status, body } = await postForm({
      grant_type: 'client_credentials',
      client_id: client.client_key,
      client_secret: client.client_secret,
    });
    expect(status).toBe(200);
    expect(body.token_type).toBe('Bearer');
    expect(body.refresh_token).toBeUndefined();
  });

  it('when a narrower scope is asked for, then the token holds only that scope', async () => {
    const { status, body } = await postForm(
      { grant_type: 'client_credentials', scope: 'members:list' },
      { authorization: basic(client.client_key, client.client_secret) },
    );
    expect(status).toBe(200);
    expect(body.scope).toBe('members:list');
    const detail = await getJson(`${gateway.url}/api/v1/members/1`, bearer(body.access_token));
    expect(detail.status).toBe(403);
  });

  it('when a scope the client lacks is asked for, then it answers 400 invalid_scope', async () => {
    const response = await postForm(
      { grant_type: 'client_credentials', scope: 'staff:read' },
      { authorization: basic(client.client_key, client.client_secret) },
    );
    expectOAuthError(response, 400, 'invalid_scope');
  });

  it('when HTTP Basic carries a wrong secret, then it answers 401 invalid_client with WWW-Authenticate', async () => {
    const response = await postForm(
      { grant_type: 'client_credentials' },
      { authorization: basic(client.client_key, 'wrong') },
    );
    expectOAuthError(response, 401, 'invalid_client');
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('when form fields carry a wrong secret, then it answers invalid_client', async () => {
    const response = await postForm({
      grant_type: 'client_credentials',
      client_id: client.client_key,
      client_secret: 'wrong',
    });
    expectOAuthError(response, 400, 'invalid_client');
    expect(JSON.stringify(response.body)).not.toContain('wrong');
  });

  it('when the client is disabled, then it answers 400 unauthorized_client', async () => {
    const disabled = await createTestClient(gateway.db);
    await gateway.db.apiClient.update({ where: { id: disabled.id }, data: { is_active: false } });
    const response = await postForm(
      { grant_type: 'client_credentials' },
      { authorization: basic(disabled.client_key, disabled.client_secret) },
    );
    expectOAuthError(response, 400, 'unauthorized_client');
  });

  it.each([
    ['grant_type is missing', {}, 400, 'invalid_request'],
    ['grant_type is unknown', { grant_type: 'urn:example:nothing' }, 400, 'unsupported_grant_type'],
    [
      'grant_type is not one the client may use',
      { grant_type: 'password' },
      400,
      'unauthorized_client',
    ],
  ])('when %s (%j), then it answers %i %s', async (_case, form, status, error) => {
    const response = await postForm(form, {
      authorization: basic(client.client_key, client.client_secret),
    });
    expectOAuthError(response, status, error);
  });

  it('when the body is JSON, then it answers 400 invalid_request', async () => {
    const response = await postJson(`${gateway.url}/oauth/token`, {
      grant_type: 'client_credentials',
      client_id: client.client_key,
      client_secret: client.client_secret,
    });
    expectOAuthError(response, 400, 'invalid_request');
  });

  it('when the body is over 100 kB, then it answers 413 invalid_request in RFC shape', async () => {
    const response = await postForm({ grant_type: 'client_credentials', pad: 'x'.repeat(110_000) });
    expectOAuthError(response, 413, 'invalid_request');
  });
});

describe('POST /oauth/token grant_type=refresh_token', () => {
  it('when a refresh token from /api/v1/auth/token is presented with client authentication, then it rotates the pair in RFC shape', async () => {
    const pair = await issueTokenPair(gateway, client);
    const { status, body } = await postForm(
      { grant_type: 'refresh_token', refresh_token: pair.refresh_token },
      { authorization: basic(client.client_key, client.client_secret) },
    );
    expect(status).toBe(200);
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: expect.any(Number),
      refresh_token: expect.any(String),
      scope: 'members:list members:read',
    });
    expect((await getJson(`${gateway.url}/api/v1/members`, bearer(body.access_token))).status).toBe(
      200,
    );
    const old = await getJson(`${gateway.url}/api/v1/members`, bearer(pair.access_token));
    expect(old.status).toBe(401);
  });

  it('when the rotated refresh token is presented again, then it answers invalid_grant and the chain is revoked', async () => {
    const pair = await issueTokenPair(gateway, client);
    const auth = { authorization: basic(client.client_key, client.client_secret) };
    const rotated = await postForm(
      { grant_type: 'refresh_token', refresh_token: pair.refresh_token },
      auth,
    );
    const replay = await postForm(
      { grant_type: 'refresh_token', refresh_token: pair.refresh_token },
      auth,
    );
    expectOAuthError(replay, 400, 'invalid_grant');
    const fresh = await getJson(
      `${gateway.url}/api/v1/members`,
      bearer(rotated.body.access_token as string),
    );
    expect(fresh.status).toBe(401);
  });

  it('when no client authentication is sent, then it answers invalid_client', async () => {
    const pair = await issueTokenPair(gateway, client);
    const response = await postForm({
      grant_type: 'refresh_token',
      refresh_token: pair.refresh_token,
    });
    expectOAuthError(response, 400, 'invalid_client');
  });

  it("when another client's refresh token is presented, then it answers invalid_grant", async () => {
    const other = await createTestClient(gateway.db);
    const pair = await issueTokenPair(gateway, other);
    const response = await postForm(
      { grant_type: 'refresh_token', refresh_token: pair.refresh_token },
      { authorization: basic(client.client_key, client.client_secret) },
    );
    expectOAuthError(response, 400, 'invalid_grant');
  });
});
