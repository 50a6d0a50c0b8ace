// The branch rule on every endpoint of the table in support/protected-endpoints.ts: each line's
// seed puts one row into the bound client's branch and one into another branch; the bound client
// never receives the other branch's row, while an unbound client does (so the check can fail).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../gateway/src/features/auth/scopes.js';
import { createTestEnvironment, type TestEnvironment } from './support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  startGateway,
  type RunningGateway,
} from './support/gateway.js';
import { LegacyDashboard } from './support/legacy-dashboard.js';
import {
  describeEndpoint,
  pathWith,
  PROTECTED_ENDPOINTS,
  type BranchData,
  type ProtectedEndpoint,
} from './support/protected-endpoints.js';
import { syncOnce } from './support/sync-once.js';

const BRANCH_ENDPOINTS = PROTECTED_ENDPOINTS.filter(
  (e): e is ProtectedEndpoint & { branchData: BranchData } =>
    e.method === 'GET' && e.branchData !== null,
);

let env: TestEnvironment;
let gateway: RunningGateway;
let own: number;
let foreign: number;
let boundToken: string;
let unboundToken: string;
const seeded = new Map<ProtectedEndpoint, { own: number; foreign: number }>();

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  try {
    own = await dashboard.insertBranch();
    foreign = await dashboard.insertBranch();
    for (const endpoint of BRANCH_ENDPOINTS) {
      seeded.set(endpoint, {
        own: await endpoint.branchData.seed(dashboard, own),
        foreign: await endpoint.branchData.seed(dashboard, foreign),
      });
    }
  } finally {
    await dashboard.close();
  }
  await syncOnce(env);
  gateway = await startGateway(env);
  boundToken = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: [...SCOPES], branchId: own }),
  );
  unboundToken = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: [...SCOPES] }),
  );
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

const get = (path: string, token: string) => getJson(`${gateway.url}${path}`, bearer(token));

/** The branch of every row in an answer: a list's items, or the single object. */
function branchesIn(endpoint: { branchData: BranchData }, body: { data: unknown }): number[] {
  const rows = Array.isArray(body.data) ? body.data : [body.data];
  return rows.map((row) => endpoint.branchData.branchOf(row));
}

describe.each(BRANCH_ENDPOINTS.map((e) => [describeEndpoint(e), e] as const))(
  '%s',
  (_name, endpoint) => {
    const single = endpoint.path.includes(':id');
    const ids = () => seeded.get(endpoint)!;

    it('when a bound client asks, then every row it receives is of its own branch', async () => {
      const { status, body } = await get(pathWith(endpoint, ids().own), boundToken);
      expect(status).toBe(200);
      const branches = branchesIn(endpoint, body as { data: unknown });
      expect(branches.length).toBeGreaterThan(0);
      expect(new Set(branches)).toEqual(new Set([own]));
    });

    it('when an unbound client asks, then it receives the other branch too', async () => {
      const { status, body } = await get(pathWith(endpoint, ids().foreign), unboundToken);
      expect(status).toBe(200);
      expect(branchesIn(endpoint, body as { data: unknown })).toContain(foreign);
    });

    it.runIf(single)(
      "when a bound client asks for another branch's object, then it answers 404 NOT_FOUND",
      async () => {
        const { status, body } = await get(pathWith(endpoint, ids().foreign), boundToken);
        expect(status).toBe(404);
        expect(body).toMatchObject({ success: false, error: 'NOT_FOUND' });
      },
    );

    it.runIf(endpoint.branchData.branchFilter === true)(
      'when a bound client names another branch_id, then it answers 403 INSUFFICIENT_SCOPE, and its own is fine',
      async () => {
        const path = pathWith(endpoint, ids().own);
        const other = await get(`${path}?branch_id=${foreign}`, boundToken);
        expect(other.status).toBe(403);
        expect(other.body).toMatchObject({ success: false, error: 'INSUFFICIENT_SCOPE' });
        const mine = await get(`${path}?branch_id=${own}`, boundToken);
        expect(mine.status).toBe(200);
        expect(new Set(branchesIn(endpoint, mine.body as { data: unknown }))).toEqual(
          new Set([own]),
        );
      },
    );
  },
);
