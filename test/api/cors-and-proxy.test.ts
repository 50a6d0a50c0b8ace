// CORS_ORIGINS (partner websites calling from a browser) and TRUST_PROXY (client addresses behind
// a load balancer), as an operator sets them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { postJson, startGateway, type RunningGateway } from '../support/gateway.js';

const PARTNER = 'https://partner.example.com';
let env: TestEnvironment;
let edge: RunningGateway;
let plain: RunningGateway;

beforeAll(async () => {
  env = await createTestEnvironment();
  [edge, plain] = await Promise.all([
    startGateway(env, {
      CORS_ORIGINS: `${PARTNER},https://other.example.com`,
      TRUST_PROXY: 'loopback',
      AUTH_FAILED_ATTEMPTS_PER_MINUTE: '3',
    }),
    startGateway(env, { AUTH_FAILED_ATTEMPTS_PER_MINUTE: '3' }),
  ]);
});

afterAll(async () => {
  await Promise.all([edge?.close(), plain?.close()]);
  await env?.destroy();
});

const preflight = (gateway: RunningGateway, origin: string) =>
  fetch(`${gateway.url}/api/v1/members`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization',
    },
  });

/** A comma-separated header value as lower-case names. */
const listOf = (value: string | null) =>
  (value ?? '').split(',').map((name) => name.trim().toLowerCase());

describe('CORS_ORIGINS', () => {
  it('when a listed origin sends a preflight, then it is allowed with the method and Authorization header', async () => {
    const response = await preflight(edge, PARTNER);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(PARTNER);
    expect(response.headers.get('access-control-allow-methods')).toContain('GET');
    expect(response.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('vary')).toMatch(/origin/i);
  });

  it('when a listed origin asks to write with Idempotency-Key and If-Match, then the preflight allows them', async () => {
    const response = await fetch(`${edge.url}/api/v1/members/1`, {
      method: 'OPTIONS',
      headers: {
        origin: PARTNER,
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization,idempotency-key,if-match',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(PARTNER);
    const methods = listOf(response.headers.get('access-control-allow-methods'));
    expect(methods).toEqual(expect.arrayContaining(['post', 'put', 'patch']));
    // A browser sends the request only when every header it named is in this list.
    const allowed = listOf(response.headers.get('access-control-allow-headers'));
    expect(allowed).toEqual(
      expect.arrayContaining([
        'authorization',
        'content-type',
        'idempotency-key',
        'if-match',
        'if-none-match',
      ]),
    );
  });

  it('when a listed origin calls the API, then its script may read ETag, X-Data-Age, Retry-After and the limits', async () => {
    const response = await fetch(`${edge.url}/api/v1/members`, { headers: { origin: PARTNER } });
    const exposed = listOf(response.headers.get('access-control-expose-headers'));
    expect(exposed).toEqual(
      expect.arrayContaining([
        'etag',
        'x-data-age',
        'retry-after',
        'x-request-id',
        'x-read-model',
        'ratelimit',
        'ratelimit-policy',
        ...['minute', 'hour', 'day'].flatMap((window) => [
          `x-ratelimit-limit-${window}`,
          `x-ratelimit-remaining-${window}`,
        ]),
      ]),
    );
  });

  it('when a listed origin calls the API, then the answer names it and exposes the request id and limits', async () => {
    const response = await fetch(`${edge.url}/api/v1/members`, { headers: { origin: PARTNER } });
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBe(PARTNER);
    expect(response.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/);
    expect(response.headers.get('access-control-expose-headers')).toMatch(
      /X-RateLimit-Remaining-Minute/,
    );
  });

  it('when an unlisted origin sends a preflight, then no Access-Control-Allow-Origin is answered', async () => {
    const response = await preflight(edge, 'https://evil.example.com');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('when CORS_ORIGINS is unset, then no CORS header is answered to anyone', async () => {
    const response = await preflight(plain, PARTNER);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('access-control-allow-methods')).toBeNull();
  });
});

const failedLogin = (gateway: RunningGateway, n: number, forwardedFor: string) =>
  postJson(
    `${gateway.url}/api/v1/auth/token`,
    { client_key: `ck_unknown${n}`, client_secret: 'wrong' },
    { 'x-forwarded-for': forwardedFor },
  );

describe('TRUST_PROXY', () => {
  it('when the proxy is trusted, then two X-Forwarded-For addresses are throttled separately', async () => {
    for (let n = 0; n < 3; n++)
      expect((await failedLogin(edge, n, '203.0.113.1')).status).toBe(401);
    expect((await failedLogin(edge, 3, '203.0.113.1')).status).toBe(429);
    expect((await failedLogin(edge, 4, '203.0.113.2')).status).toBe(401);
  });

  it('when no proxy is trusted, then X-Forwarded-For is ignored and one address is throttled', async () => {
    for (let n = 10; n < 13; n++)
      expect((await failedLogin(plain, n, '198.51.100.1')).status).toBe(401);
    expect((await failedLogin(plain, 13, '198.51.100.2')).status).toBe(429);
  });
});
