// Every protected endpoint, from the table in support/protected-endpoints.ts: a token lacking the
// declared scope is 403, a missing, garbage, expired, revoked or disabled client's token is 401,
// and a token holding the declared scope gets the success status the served OpenAPI document
// declares for the operation.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '#api/scopes.js';
import { createWebhookService } from '../../gateway/src/features/webhooks/webhooks.service.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  createTestClient,
  getJson,
  issueToken,
  postJson,
  startGateway,
  type RunningGateway,
  type TestClient,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { randomPhone } from '../support/member-writes.js';
import {
  BRANCH_DATA,
  describeEndpoint,
  guardedRoutes,
  pathWith,
  PROTECTED_ENDPOINTS,
  type BranchData,
  type ProtectedEndpoint,
} from '../support/protected-endpoints.js';
import { syncOnce } from '../support/sync-once.js';

/**
 * What an operation needs beyond its declared scope to succeed. Its path's `:id` is a row the
 * line's branch seed (BRANCH_DATA) puts in the dashboard unless `seed` or `ownSubscription` says
 * otherwise; the status it must answer is the document's, never written here.
 */
interface SuccessInput {
  seed?: BranchData['seed'];
  /** `:id` is a webhook subscription of the calling client's own. */
  ownSubscription?: true;
  body?: () => object;
  /** Scopes success needs beside the declared one. */
  alsoScopes?: Scope[];
  /**
   * A sandbox client's operation: a live client's token gets its 404 here, the sandbox's
   * success is test/api/sandbox.test.ts's.
   */
  sandboxOnly?: true;
}

/** A loopback target: no webhook worker runs here to deliver to it. */
const TARGET = 'https://127.0.0.1/hook';
const subscription: SuccessInput = { ownSubscription: true };
const SUCCESS_INPUTS: Record<string, SuccessInput> = {
  createMember: { body: () => ({ full_name: 'Ayşe', phone: randomPhone(), branch_id: branch }) },
  updateMember: { body: () => ({ surname: 'Yılmaz' }) },
  getPackage: { seed: (d) => d.insertPackage() },
  // A subscription carries the changes its client may read: webhooks:manage alone reads none.
  createWebhook: {
    body: () => ({ url: TARGET, types: ['members'] }),
    alsoScopes: ['members:read'],
  },
  getWebhook: subscription,
  deleteWebhook: subscription,
  rotateWebhookSecret: subscription,
  enableWebhook: subscription,
  replayWebhook: {
    ownSubscription: true,
    body: () => ({ since: new Date(Date.now() - 3_600_000).toISOString() }),
  },
  listWebhookDeliveries: subscription,
  updateWebhook: { ownSubscription: true, body: () => ({ description: 'Turnike' }) },
  createSandboxEvent: { sandboxOnly: true, body: () => ({ type: 'members' }) },
  // Nothing listens at TARGET: the test's outcome is in its 200 answer.
  testWebhook: subscription,
};

const inputOf = (endpoint: ProtectedEndpoint) => SUCCESS_INPUTS[endpoint.operationId] ?? {};

let env: TestEnvironment;
let gateway: RunningGateway;
let branch: number;
/** Per operation whose path names a seeded row: that row's id. */
const seededIds = new Map<string, number>();
/** Per operation id: the success status the served document declares. */
const successStatuses = new Map<string, number>();
const brokenTokens: Record<string, string> = {};

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  try {
    branch = await dashboard.insertBranch();
    for (const endpoint of PROTECTED_ENDPOINTS) {
      const { seed, ownSubscription } = inputOf(endpoint);
      if (!endpoint.path.includes(':id') || ownSubscription) continue;
      const seedRow = seed ?? endpoint.branchData?.seed;
      if (seedRow) seededIds.set(endpoint.operationId, await seedRow(dashboard, branch));
    }
  } finally {
    await dashboard.close();
  }
  await syncOnce(env);
  // createWebhook's input subscribes the loopback TARGET.
  gateway = await startGateway(env, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  const document = (await getJson(`${gateway.url}/api/v1/openapi.json`)).body as {
    paths: Record<string, Record<string, { operationId: string; responses: object }>>;
  };
  for (const operation of Object.values(document.paths).flatMap((item) => Object.values(item))) {
    const success = Object.keys(operation.responses).filter((status) => /^2\d\d$/.test(status));
    if (success.length === 1) successStatuses.set(operation.operationId, Number(success[0]));
  }
  const shortLived = await startGateway(env, { ACCESS_TOKEN_TTL_SECONDS: '1' });
  try {
    brokenTokens.expired = await issueToken(
      shortLived,
      await createTestClient(gateway.db, { scopes: [...SCOPES] }),
    );
  } finally {
    await shortLived.close();
  }
  brokenTokens.revoked = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: [...SCOPES] }),
  );
  await postJson(
    `${gateway.url}/api/v1/auth/revoke`,
    { token_type: 'all' },
    auth(brokenTokens.revoked),
  );
  const disabled = await createTestClient(gateway.db, { scopes: [...SCOPES] });
  brokenTokens.disabled = await issueToken(gateway, disabled);
  await gateway.db.apiClient.update({ where: { id: disabled.id }, data: { is_active: false } });
  // The expiry is stored with the token; wait it out (1 s lifetime, whole-second rounding).
  await sleep(1100);
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

function call(
  endpoint: ProtectedEndpoint,
  headers: Record<string, string>,
  id = 1,
  body: object = {},
) {
  const url = `${gateway.url}${pathWith(endpoint, id)}`;
  return endpoint.method === 'GET'
    ? getJson(url, { headers })
    : getJson(url, {
        method: endpoint.method,
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
}

async function tokenHolding(scopes: Scope[]) {
  return issueToken(gateway, await createTestClient(gateway.db, { scopes }));
}

/** The `:id` the operation succeeds on for `client` (1 where its path names none). */
async function successIdFor(endpoint: ProtectedEndpoint, client: TestClient): Promise<number> {
  if (!endpoint.path.includes(':id')) return 1;
  if (inputOf(endpoint).ownSubscription) {
    const service = createWebhookService(gateway.db, env.config());
    const created = await service.create(client.id, {
      url: TARGET,
      types: ['members'],
      description: null,
    });
    return created.id;
  }
  const id = seededIds.get(endpoint.operationId);
  if (id === undefined) throw new Error(`${endpoint.operationId}: no row to name in its path`);
  return id;
}

describe('the protected endpoint table', () => {
  it('when the app is built, then every guarded route has exactly one line with the scope it declares', () => {
    const declared = guardedRoutes(gateway.app).map(
      (r) => `${r.method} ${r.path} ${String(r.scope)}`,
    );
    const listed = PROTECTED_ENDPOINTS.map((e) => `${describeEndpoint(e)} ${String(e.scope)}`);
    expect(declared.length).toBeGreaterThan(0);
    expect([...declared].sort()).toEqual([...listed].sort());
  });

  it('when the served document is read, then every operation in the table has one success status', () => {
    const undocumented = PROTECTED_ENDPOINTS.filter((e) => !successStatuses.has(e.operationId));
    expect(undocumented.map(describeEndpoint)).toEqual([]);
  });

  it('when a success input is written, then it names a declared operation', () => {
    const declared = new Set(PROTECTED_ENDPOINTS.map((e) => e.operationId));
    expect(Object.keys(SUCCESS_INPUTS).filter((id) => !declared.has(id))).toEqual([]);
  });

  it('when an operation is declared, then its branch behaviour is decided in BRANCH_DATA', () => {
    const undecided = PROTECTED_ENDPOINTS.filter((e) => !(e.operationId in BRANCH_DATA));
    expect(undecided.map(describeEndpoint)).toEqual([]);
  });
});

describe.each(PROTECTED_ENDPOINTS.map((e) => [describeEndpoint(e), e] as const))(
  '%s',
  (_name, endpoint) => {
    it.each([
      ['no token', {}],
      ['a garbage token', { authorization: 'Bearer not-a-token' }],
      ['an empty bearer', { authorization: 'Bearer ' }],
      ['another scheme', { authorization: 'Basic Y2tfeDp5' }],
    ])('when called with %s, then it answers 401 INVALID_TOKEN', async (_case, headers) => {
      const { status, body } = await call(endpoint, headers);
      expect(status).toBe(401);
      expect(body).toMatchObject({ success: false, error: 'INVALID_TOKEN' });
    });

    it.each(['expired', 'revoked', 'disabled'])(
      'when called with a token that is %s, then it answers 401 INVALID_TOKEN',
      async (kind) => {
        const { status, body } = await call(endpoint, auth(brokenTokens[kind]!));
        expect(status).toBe(401);
        expect(body).toMatchObject({ success: false, error: 'INVALID_TOKEN' });
      },
    );

    it('when the token holds the declared scope and the input is valid, then it answers the documented success status', async () => {
      const input = inputOf(endpoint);
      const scopes: Scope[] = [
        ...(endpoint.scope ? [endpoint.scope] : ['members:list' as const]),
        ...(input.alsoScopes ?? []),
      ];
      const client = await createTestClient(gateway.db, { scopes });
      const id = await successIdFor(endpoint, client);
      const token = await issueToken(gateway, client);
      const { status, body } = await call(endpoint, auth(token), id, input.body?.() ?? {});
      const expected = input.sandboxOnly ? 404 : successStatuses.get(endpoint.operationId);
      expect(status, JSON.stringify(body)).toBe(expected);
    });
  },
);

const SCOPED_ENDPOINTS = PROTECTED_ENDPOINTS.filter(
  (e): e is ProtectedEndpoint & { scope: Scope } => e.scope !== null,
);

describe.each(SCOPED_ENDPOINTS.map((e) => [describeEndpoint(e), e] as const))(
  '%s',
  (_name, endpoint) => {
    it('when the token holds every scope but the declared one, then it answers 403 INSUFFICIENT_SCOPE', async () => {
      const token = await tokenHolding(SCOPES.filter((s) => s !== endpoint.scope));
      const { status, body } = await call(endpoint, auth(token));
      expect(status).toBe(403);
      expect(body).toMatchObject({ success: false, error: 'INSUFFICIENT_SCOPE' });
    });
  },
);
