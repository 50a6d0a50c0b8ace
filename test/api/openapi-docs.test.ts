// The OpenAPI document and the offline docs page, and the members' answers against the schemas
// the document is generated from.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  memberListResponse,
  memberResponse,
} from '../../gateway/src/features/members/members.schemas.js';
import { ENDPOINTS } from '../../gateway/src/endpoints.js';
import { tokenDataSchema } from '../../gateway/src/features/auth/auth.schemas.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  postJson,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { PROTECTED_ENDPOINTS } from '../support/protected-endpoints.js';
import { syncOnce } from '../support/sync-once.js';

let env: TestEnvironment;
let gateway: RunningGateway;
let memberId: number;

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
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    // The renderer's own files come from this gateway: the stylesheet, the bundle, the icon.
    const assets = [...html.matchAll(/(?:src|href)="(\/api\/v1\/docs\/assets\/[^"]+)"/g)];
    expect(assets).toHaveLength(3);
    for (const [, asset] of assets) {
      expect((await fetch(`${gateway.url}${asset}`)).status, asset).toBe(200);
    }
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

describe('GET /api/v1 (the info endpoint)', () => {
  it("when read, then its groups are exactly the specification's and each declared operation is in its group", async () => {
    const { status, body } = await getJson(`${gateway.url}/api/v1`);
    expect(status).toBe(200);
    const groups = body.data.endpoints as Record<string, Record<string, string>>;
    expect(Object.keys(groups)).toEqual([
      'auth',
      'members',
      'branches',
      'packages',
      'financial',
      'dashboard',
      'market',
      'staff',
      'notifications',
      'private_lessons',
      'presence',
      // Beyond the specification: the change feed, webhooks, usage reports and the sandbox.
      'changes',
      'webhooks',
      'usage',
      'sandbox',
    ]);
    for (const endpoint of ENDPOINTS) {
      expect(groups[endpoint.group]?.[endpoint.operationId]).toBe(
        `${endpoint.method} /api/v1${endpoint.path}`,
      );
    }
    const listed = Object.values(groups).flatMap((group) => Object.keys(group));
    expect(listed.sort()).toEqual(ENDPOINTS.map((e) => e.operationId).sort());
  });
});

describe('an undocumented path under /api/v1', () => {
  it('when called, then the answer is a 404 that passes the contract check as an Error', async () => {
    const { status, body } = await getJson(`${gateway.url}/api/v1/no-such-thing`);
    expect(status).toBe(404);
    expect(body.error).toBe('NOT_FOUND');
  });
});
