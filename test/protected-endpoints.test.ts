// Every protected endpoint, from the table in support/protected-endpoints.ts: a token lacking the
// declared scope is 403, a missing, garbage, expired, revoked or disabled client's token is 401.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../api/scopes.js';
import { createTestEnvironment, type TestEnvironment } from './support/environment.js';
import {
  createTestClient,
  getJson,
  issueToken,
  postJson,
  startGateway,
  type RunningGateway,
} from './support/gateway.js';
import {
  BRANCH_DATA,
  describeEndpoint,
  guardedRoutes,
  pathWith,
  PROTECTED_ENDPOINTS,
  type ProtectedEndpoint,
} from './support/protected-endpoints.js';

let env: TestEnvironment;
let gateway: RunningGateway;
const brokenTokens: Record<string, string> = {};

beforeAll(async () => {
  env = await createTestEnvironment();
  gateway = await startGateway(env);
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

function call(endpoint: ProtectedEndpoint, headers: Record<string, string>) {
  const url = `${gateway.url}${pathWith(endpoint, 1)}`;
  return endpoint.method === 'GET'
    ? getJson(url, { headers })
    : getJson(url, {
        method: endpoint.method,
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
}

async function tokenHolding(scopes: Scope[]) {
  return issueToken(gateway, await createTestClient(gateway.db, { scopes }));
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

    it.skipIf(endpoint.scope === null)(
      'when the token holds every scope but the declared one, then it answers 403 INSUFFICIENT_SCOPE',
      async () => {
        const token = await tokenHolding(SCOPES.filter((s) => s !== endpoint.scope));
        const { status, body } = await call(endpoint, auth(token));
        expect(status).toBe(403);
        expect(body).toMatchObject({ success: false, error: 'INSUFFICIENT_SCOPE' });
      },
    );

    it('when the token holds only the declared scope, then it is let through', async () => {
      const token = await tokenHolding(endpoint.scope ? [endpoint.scope] : ['members:list']);
      const { status } = await call(endpoint, auth(token));
      expect([401, 403]).not.toContain(status);
      expect(status).toBeLessThan(500);
    });
  },
);
