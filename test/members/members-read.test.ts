import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { syncOnce } from '../support/sync-once.js';

let env: TestEnvironment;
let gateway: RunningGateway;
let token: string;
let boundToken: string;
let branchA: number;
let branchB: number;
const ids: Record<string, number> = {};

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  branchA = await dashboard.insertBranch({ name: 'Kadıköy' });
  branchB = await dashboard.insertBranch({ name: 'Beşiktaş' });
  ids.ismail = await dashboard.insertMember({
    branch_id: branchA,
    full_name: 'İsmail',
    surname: 'Kaya',
    phone: '05321112233',
  });
  ids.isik = await dashboard.insertMember({
    branch_id: branchA,
    full_name: 'Deniz',
    surname: 'ışık',
    phone: '05329998877',
  });
  ids.sukru = await dashboard.insertMember({
    branch_id: branchB,
    full_name: 'Şükrü',
    surname: 'Öz',
    phone: '05551234567',
    email: 'sukru@example.com',
  });
  ids.pasif = await dashboard.insertMember({
    branch_id: branchB,
    full_name: 'Pasif',
    surname: 'Üye',
    status: 'Pasif',
  });
  await dashboard.close();
  await syncOnce(env);
  gateway = await startGateway(env);
  token = await issueToken(gateway, await createTestClient(gateway.db));
  boundToken = await issueToken(gateway, await createTestClient(gateway.db, { branchId: branchA }));
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

const list = (query: string, as = token) =>
  getJson(`${gateway.url}/api/v1/members?${query}`, bearer(as));
const idsOf = (body: Record<string, any>) =>
  (body.data as { id: number }[]).map((m) => m.id).sort((a, b) => a - b);

describe('GET /api/v1/members search', () => {
  it.each([
    ['ismail', 'ismail'],
    ['İSMAİL', 'ismail'],
    ['IŞIK', 'isik'],
    ['sukru', 'sukru'],
    ['SUKRU@EXAMPLE', 'sukru'],
  ])('when searching %s, then it finds the Turkish-spelled member', async (search, who) => {
    const { status, body } = await list(`search=${encodeURIComponent(search)}`);
    expect(status).toBe(200);
    expect(idsOf(body)).toEqual([ids[who]]);
  });

  it.each(['+90 555 123 45 67', '0555 123 4567', '5551234567', '1234567'])(
    'when searching the digits %s, then it matches the phone whatever the formatting',
    async (search) => {
      const { body } = await list(`search=${encodeURIComponent(search)}`);
      expect(idsOf(body)).toEqual([ids.sukru]);
    },
  );
});

describe('GET /api/v1/members filters and pages', () => {
  it('when filtering by status, then active and passive split the members', async () => {
    expect(idsOf((await list('status=passive')).body)).toEqual([ids.pasif]);
    expect(idsOf((await list('status=active')).body)).not.toContain(ids.pasif);
  });

  it('when filtering by branch, then only that branch is listed', async () => {
    expect(idsOf((await list(`branch_id=${branchB}`)).body)).toEqual(
      [ids.sukru, ids.pasif].sort((a, b) => a! - b!),
    );
  });

  it('when paging, then pages are stable by id and pagination tells the total', async () => {
    const first = await list('limit=3&page=1');
    const second = await list('limit=3&page=2');
    expect(first.body.pagination).toEqual({ page: 1, limit: 3, total: 4, total_pages: 2 });
    expect(second.body.data).toHaveLength(1);
    expect([...idsOf(first.body), ...idsOf(second.body)]).toEqual(
      Object.values(ids).sort((a, b) => a - b),
    );
  });

  it.each([
    ['limit=201', 'limit'],
    ['limit=0', 'limit'],
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['status=deleted', 'status'],
    ['branch_id=-1', 'branch_id'],
  ])(
    'when the query has %s, then it answers 400 VALIDATION_ERROR with details',
    async (query, field) => {
      const { status, body } = await list(query);
      expect(status).toBe(400);
      expect(body).toMatchObject({ success: false, error: 'VALIDATION_ERROR' });
      expect(body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    },
  );
});

describe('bearer token on /members', () => {
  it.each([
    ['missing', {}],
    ['malformed', { authorization: 'Bearer' }],
    ['not bearer', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['unknown', { authorization: 'Bearer 0123456789abcdefghijklmnopqrstuvwxyzABCDEFG' }],
  ])('when the token is %s, then it answers 401 INVALID_TOKEN', async (_case, headers) => {
    const { status, body } = await getJson(`${gateway.url}/api/v1/members`, { headers });
    expect(status).toBe(401);
    expect(body).toMatchObject({ success: false, error: 'INVALID_TOKEN' });
  });
});

describe('branch rule on /members', () => {
  it('when a bound client lists, then it sees only its branch', async () => {
    expect(idsOf((await list('', boundToken)).body)).toEqual(
      [ids.ismail, ids.isik].sort((a, b) => a! - b!),
    );
  });

  it('when a bound client asks for another branch, then it answers 403 INSUFFICIENT_SCOPE', async () => {
    const { status, body } = await list(`branch_id=${branchB}`, boundToken);
    expect(status).toBe(403);
    expect(body.error).toBe('INSUFFICIENT_SCOPE');
  });

  it("when a bound client asks for another branch's member, then it answers 404", async () => {
    const { status, body } = await getJson(
      `${gateway.url}/api/v1/members/${ids.sukru}`,
      bearer(boundToken),
    );
    expect(status).toBe(404);
    expect(body.error).toBe('NOT_FOUND');
  });
});

describe('errors outside the routes', () => {
  it('when the path is unknown, then it answers 404 NOT_FOUND in the error body', async () => {
    const { status, body } = await getJson(`${gateway.url}/api/v1/nothing-here`);
    expect(status).toBe(404);
    expect(body).toMatchObject({ success: false, error: 'NOT_FOUND' });
  });

  it('when the body is over 100 kB, then it answers 413 VALIDATION_ERROR', async () => {
    const { status, body } = await postJson(`${gateway.url}/api/v1/auth/token`, {
      client_key: 'x'.repeat(110_000),
      client_secret: 'y',
    });
    expect(status).toBe(413);
    expect(body).toMatchObject({ success: false, error: 'VALIDATION_ERROR' });
  });

  it('when a member id is not a number, then it answers 400 VALIDATION_ERROR', async () => {
    const { status, body } = await getJson(`${gateway.url}/api/v1/members/abc`, bearer(token));
    expect(status).toBe(400);
    expect(body.error).toBe('VALIDATION_ERROR');
  });
});
