// Answers that carry partner data are never kept by a browser or a shared cache
// (Cache-Control: no-store), errors included; a member's ETag still gives 304. The documentation,
// which holds no partner data, may be cached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { NO_RATE_LIMIT } from '../support/read-fixture.js';
import { syncOnce } from '../support/sync-once.js';

let env: TestEnvironment;
let gateway: RunningGateway;
let token: string;
let memberId: number;

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  const branchId = await dashboard.insertBranch();
  memberId = await dashboard.insertMember({ branch_id: branchId, full_name: 'Ayşe' });
  await dashboard.close();
  await syncOnce(env);
  gateway = await startGateway(env, NO_RATE_LIMIT);
  const client = await createTestClient(gateway.db, {
    scopes: ['members:list', 'members:read', 'branches:read', 'dashboard:read'],
  });
  token = await issueToken(gateway, client);
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

const DATA_ANSWERS: [string, () => string, number][] = [
  ['the members list', () => '/api/v1/members', 200],
  ['a member', () => `/api/v1/members/${memberId}`, 200],
  ["a member's packages", () => `/api/v1/members/${memberId}/packages`, 200],
  ['the branches', () => '/api/v1/branches', 200],
  ['the dashboard statistics', () => '/api/v1/dashboard/stats', 200],
  ['the change feed', () => '/api/v1/changes', 200],
  ['a member that does not exist', () => '/api/v1/members/2147483647', 404],
  ['a bad filter', () => '/api/v1/members?page=0', 400],
];

describe('Cache-Control', () => {
  it.each(DATA_ANSWERS)(
    'when GET answers %s, then it says no-store',
    async (_what, path, expected) => {
      const { status, headers } = await getJson(`${gateway.url}${path()}`, bearer(token));
      expect(status).toBe(expected);
      expect(headers.get('cache-control')).toBe('no-store');
    },
  );

  it('when a request has no token, then its 401 says no-store', async () => {
    const { status, headers } = await getJson(`${gateway.url}/api/v1/members`);
    expect(status).toBe(401);
    expect(headers.get('cache-control')).toBe('no-store');
  });

  it("when If-None-Match names a member's ETag, then 304 still answers, saying no-store", async () => {
    const url = `${gateway.url}/api/v1/members/${memberId}`;
    const etag = (await getJson(url, bearer(token))).headers.get('etag')!;
    expect(etag).toBeTruthy();
    const unchanged = await fetch(url, {
      // fetch adds Cache-Control: no-cache to a conditional request unless one is given.
      headers: {
        authorization: `Bearer ${token}`,
        'if-none-match': etag,
        'cache-control': 'max-age=0',
      },
    });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get('cache-control')).toBe('no-store');
  });

  it.each(['/api/v1/openapi.json', '/api/v1/docs'])(
    'when GET answers the documentation (%s), then it may be cached',
    async (path) => {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    },
  );
});
