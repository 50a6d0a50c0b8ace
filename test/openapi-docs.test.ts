// The OpenAPI document and the offline docs page, and the members' answers against the schemas
// the document is generated from.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  memberListResponse,
  memberResponse,
} from '../gateway/src/features/members/members.schemas.js';
import { tokenDataSchema } from '../gateway/src/features/auth/auth.schemas.js';
import { assertMatchesDocument, type ObservedResponse } from './support/contract.js';
import { createTestEnvironment, type TestEnvironment } from './support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  postJson,
  startGateway,
  type RunningGateway,
} from './support/gateway.js';
import { LegacyDashboard } from './support/legacy-dashboard.js';
import { PROTECTED_ENDPOINTS } from './support/protected-endpoints.js';
import { syncOnce } from './support/sync-once.js';

let env: TestEnvironment;
let gateway: RunningGateway;
let memberId: number;

const memberExample = {
  id: 7,
  full_name: 'Ayşe Yılmaz',
  surname: null,
  phone: '5321234567',
  email: null,
  tc_no: null,
  member_no: 'M-7',
  gender: 'Kadın',
  birth_date: '1990-01-02',
  branch_id: 1,
  branch_name: 'Merkez',
  entry_status: false,
  balance: 0,
  freeze_status: false,
  status: 'Aktif',
  registered_at: '2026-01-02T09:00:00.000Z',
  address: null,
  qr_code: 'QR7',
  referral_code: null,
  created_at: '2026-01-02T09:00:00.000Z',
  updated_at: '2026-01-02T09:00:00.000Z',
};

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  memberId = await dashboard.insertMember({
    branch_id: await dashboard.insertBranch(),
    email: 'a@example.com',
    birth_date: '1990-01-02',
  });
  await dashboard.close();
  await syncOnce(env);
  gateway = await startGateway(env);
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

describe('GET /api/v1/openapi.json', () => {
  it('then it is an OpenAPI 3.1 document of version 1.0.0 describing every route that exists', async () => {
    const { status, body } = await getJson(`${gateway.url}/api/v1/openapi.json`);
    expect(status).toBe(200);
    expect(body.openapi).toBe('3.1.0');
    expect(body.info.version).toBe('1.0.0');
    const documented = Object.entries(
      body.paths as Record<string, Record<string, unknown>>,
    ).flatMap(([path, item]) =>
      Object.keys(item).map(
        (method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
      ),
    );
    for (const endpoint of PROTECTED_ENDPOINTS)
      expect(documented).toContain(`${endpoint.method} ${endpoint.path}`);
    expect(documented).toEqual(
      expect.arrayContaining([
        'POST /api/v1/auth/token',
        'POST /api/v1/auth/refresh',
        'GET /api/v1',
      ]),
    );
    expect(Object.keys(body.components.schemas)).toEqual(
      expect.arrayContaining(['Member', 'Pagination', 'TokenData', 'Error', 'MemberListResponse']),
    );
    expect(body.components.schemas.Pagination.additionalProperties).toBe(false);
  });
});

describe('GET /api/v1/docs', () => {
  it('when the info endpoint names the documentation, then that page renders offline', async () => {
    const info = await getJson(`${gateway.url}/api/v1`);
    expect(info.body.data.documentation).toBe('/api/v1/docs');
    const page = await fetch(`${gateway.url}${info.body.data.documentation}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    const script = await fetch(`${gateway.url}/api/v1/docs/docs.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain('/api/v1/openapi.json');
  });
});

describe('answers against the documented schemas', () => {
  it('then token, member list and member detail answers parse with the schemas behind the document', async () => {
    const client = await createTestClient(gateway.db);
    const issued = await postJson(`${gateway.url}/api/v1/auth/token`, client);
    expect(tokenDataSchema.safeParse(issued.body.data).error).toBeUndefined();
    const token = await issueToken(gateway, client);
    const list = await getJson(`${gateway.url}/api/v1/members`, bearer(token));
    expect(memberListResponse.safeParse(list.body).error).toBeUndefined();
    const detail = await getJson(`${gateway.url}/api/v1/members/${memberId}`, bearer(token));
    expect(memberResponse.safeParse(detail.body).error).toBeUndefined();
  });
});

describe('the contract check every test call goes through', () => {
  const json = new Headers({ 'content-type': 'application/json; charset=utf-8' });
  const seen = (over: Partial<ObservedResponse>): ObservedResponse => ({
    method: 'GET',
    url: 'http://127.0.0.1:1/api/v1/members/7',
    status: 200,
    headers: json,
    body: null,
    ...over,
  });
  const error = { success: false, error: 'NOT_FOUND', message: 'Yok.', request_id: 'r' };

  it('when a body breaks its schema, then the call fails naming the field', () => {
    const body = { success: true, data: { ...memberExample, branch_name: 3 } };
    expect(() => assertMatchesDocument(seen({ body }))).toThrow(/\/data\/branch_name must be/);
    expect(() =>
      assertMatchesDocument(seen({ body: { ...body, data: memberExample } })),
    ).not.toThrow();
  });

  it('when an error body is not the Error schema, then the call fails', () => {
    expect(() => assertMatchesDocument(seen({ status: 404, body: error }))).not.toThrow();
    const bad = { ...error, error: 'GONE' };
    expect(() => assertMatchesDocument(seen({ status: 404, body: bad }))).toThrow(/\/error must/);
  });

  it('when a status is not documented for the operation, then the call fails', () => {
    const body = { ...error, error: 'DUPLICATE' };
    expect(() => assertMatchesDocument(seen({ status: 409, body }))).toThrow(/not documented/);
  });

  it('when a 429 or 503 has no Retry-After, then the call fails', () => {
    const body = { ...error, error: 'RATE_LIMIT_EXCEEDED' };
    expect(() => assertMatchesDocument(seen({ status: 429, body }))).toThrow(/Retry-After/);
    const headers = new Headers(json);
    headers.set('retry-after', '3');
    expect(() => assertMatchesDocument(seen({ status: 429, body, headers }))).not.toThrow();
  });

  it('when a path under /api/v1 is not documented, then only an Error answer passes', async () => {
    const unknown = await getJson(`${gateway.url}/api/v1/no-such-thing`);
    expect(unknown.status).toBe(404);
    const url = 'http://127.0.0.1:1/api/v1/no-such-thing';
    expect(() => assertMatchesDocument(seen({ url, body: { success: true } }))).toThrow(
      /not documented/,
    );
    const outside = seen({ url: 'http://127.0.0.1:1/healthz', body: 'anything' });
    expect(() => assertMatchesDocument(outside)).not.toThrow();
  });
});
