// Input crafted to break the gateway answers 4xx in the specification's error body (RFC 6749's on
// /oauth/token), one named case each, and LIKE wildcards in a search match only themselves.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  startGateway,
  type RunningGateway,
  type TestClient,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { syncOnce } from '../support/sync-once.js';

let env: TestEnvironment;
let gateway: RunningGateway;
let client: TestClient;
let token: string;
let percentMemberId: number;

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  const branchId = await dashboard.insertBranch();
  await dashboard.insertMember({ branch_id: branchId, full_name: 'Ayşe' });
  await dashboard.insertMember({ branch_id: branchId, full_name: 'Mehmet' });
  percentMemberId = await dashboard.insertMember({ branch_id: branchId, full_name: 'Yüzde %50' });
  await dashboard.close();
  await syncOnce(env);
  gateway = await startGateway(env, { AUTH_FAILED_ATTEMPTS_PER_MINUTE: '10000' });
  client = await createTestClient(gateway.db);
  token = await issueToken(gateway, client);
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

function expectSpecError(response: { status: number; body: any }, status: number) {
  expect(response.status).toBe(status);
  expect(response.body).toMatchObject({
    success: false,
    error: 'VALIDATION_ERROR',
    message: expect.any(String),
    request_id: expect.any(String),
  });
}

const searchIds = async (search: string) => {
  const { status, body } = await getJson(
    `${gateway.url}/api/v1/members?search=${encodeURIComponent(search)}`,
    bearer(token),
  );
  expect(status).toBe(200);
  return (body.data as { id: number }[]).map((member) => member.id);
};

function postOAuth(body: string) {
  return getJson(`${gateway.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
}

describe('hostile input', () => {
  it('when the path cannot be percent-decoded (GET /api/v1/members/%FF), then it answers 400', async () => {
    expectSpecError(await getJson(`${gateway.url}/api/v1/members/%FF`, bearer(token)), 400);
  });

  it('when a query value holds a NUL byte (search=a%00b), then it answers 400', async () => {
    expectSpecError(
      await getJson(`${gateway.url}/api/v1/members?search=a%00b`, bearer(token)),
      400,
    );
  });

  it('when a JSON body string holds a NUL byte, then it answers 400', async () => {
    const response = await getJson(`${gateway.url}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_key: 'ck_\u0000', client_secret: 'x' }),
    });
    expectSpecError(response, 400);
  });

  it('when a body declared Content-Encoding: gzip is not gzip, then it answers 400', async () => {
    const response = await getJson(`${gateway.url}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: JSON.stringify({ client_key: client.client_key, client_secret: 'x' }),
    });
    expectSpecError(response, 400);
  });

  it('when a body is really gzip, then it is read', async () => {
    const response = await getJson(`${gateway.url}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify(client)),
    });
    expect(response.status).toBe(200);
  });

  it('when POST /oauth/token carries client_id twice, then it answers 400 invalid_request', async () => {
    const response = await postOAuth(
      `grant_type=client_credentials&client_id=${client.client_key}&client_id=other&client_secret=${client.client_secret}`,
    );
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'invalid_request',
      error_description: expect.any(String),
    });
  });

  it('when POST /oauth/token carries client_secret twice, then it answers 400 invalid_request', async () => {
    const response = await postOAuth(
      `grant_type=client_credentials&client_id=${client.client_key}&client_secret=a&client_secret=${client.client_secret}`,
    );
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
  });

  it('when the search is "%", then only the member whose name holds "%" matches', async () => {
    expect(await searchIds('%')).toEqual([percentMemberId]);
  });

  it('when the search is "_" or "\\", then no member matches', async () => {
    expect(await searchIds('_')).toEqual([]);
    expect(await searchIds('\\')).toEqual([]);
  });
});

describe('validation details', () => {
  it('when a query value is out of range, then the details message is Turkish', async () => {
    const { status, body } = await getJson(
      `${gateway.url}/api/v1/members?limit=abc`,
      bearer(token),
    );
    expect(status).toBe(400);
    const messages = (body.details as { message: string }[]).map((detail) => detail.message);
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect(message).toMatch(/[çğıöşüÇĞİÖŞÜ]|Geçersiz|beklenen/i);
    expect(messages.join(' ')).not.toMatch(/Invalid|expected|received/);
  });
});

describe('security headers', () => {
  it('when answers succeed, fail or name no route, then each carries the same security headers', async () => {
    const answers = [
      await getJson(`${gateway.url}/api/v1/members/${percentMemberId}`, bearer(token)),
      await getJson(`${gateway.url}/api/v1/members/${percentMemberId}`),
      await fetch(`${gateway.url}/api/v1/no-such-route`),
      await fetch(`${gateway.url}/healthz`),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 404, 200]);
    for (const { headers } of answers) {
      expect(headers.get('x-content-type-options')).toBe('nosniff');
      expect(headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
      expect(headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(headers.get('x-powered-by')).toBeNull();
    }
  });
});
