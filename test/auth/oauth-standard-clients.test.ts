// Off-the-shelf OAuth clients against the gateway: openid-client with both client authentication
// methods of RFC 6749 §2.3.1, and the RFC 6750 §3 / RFC 6749 §5.2 challenges on 401.
import * as oidc from 'openid-client';
import { describe, expect } from 'vitest';
import { clientTest } from '../support/fixtures.js';
import { bearer, getJson, type RunningGateway, type TestClient } from '../support/gateway.js';

const it = clientTest({ AUTH_FAILED_ATTEMPTS_PER_MINUTE: '10000' }, { scopes: ['members:list'] });

// Read by the helpers below as by the tests.
let gateway: RunningGateway;
let client: TestClient;

it.beforeAll(({ gateway: started, client: made }) => {
  gateway = started;
  client = made;
});

function configuration(auth: oidc.ClientAuth): oidc.Configuration {
  const config = new oidc.Configuration(
    { issuer: gateway.url, token_endpoint: `${gateway.url}/oauth/token` },
    client.client_key,
    {},
    auth,
  );
  // The test gateway listens on plain http://127.0.0.1; production sits behind TLS.
  oidc.allowInsecureRequests(config);
  return config;
}

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('openid-client', () => {
  for (const [name, auth] of [
    ['client_secret_basic', () => oidc.ClientSecretBasic(client.client_secret)],
    ['client_secret_post', () => oidc.ClientSecretPost(client.client_secret)],
  ] as const) {
    it(`when it authenticates with ${name}, then it obtains a token that opens a protected endpoint`, async () => {
      const config = configuration(auth());
      const tokens = await oidc.clientCredentialsGrant(config);
      expect(tokens.token_type.toLowerCase()).toBe('bearer');
      expect(tokens.scope).toBe('members:list');
      const response = await oidc.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL(`${gateway.url}/api/v1/members`),
        'GET',
      );
      expect(response.status).toBe(200);
      expect(((await response.json()) as { success: boolean }).success).toBe(true);
    });
  }

  it('when its token is not accepted, then it reads the 401 challenge Bearer error="invalid_token"', async () => {
    const config = configuration(oidc.ClientSecretBasic(client.client_secret));
    const error: unknown = await oidc
      .fetchProtectedResource(
        config,
        'not-a-token',
        new URL(`${gateway.url}/api/v1/members`),
        'GET',
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(oidc.WWWAuthenticateChallengeError);
    const challenge = error as oidc.WWWAuthenticateChallengeError;
    expect(challenge.response.status).toBe(401);
    expect(challenge.cause[0]).toMatchObject({
      scheme: 'bearer',
      parameters: { error: 'invalid_token' },
    });
  });
});

describe('challenges and Basic decoding', () => {
  it('when a protected endpoint is called without a token, then the 401 carries WWW-Authenticate: Bearer', async () => {
    const { status, headers, body } = await getJson(`${gateway.url}/api/v1/members`);
    expect(status).toBe(401);
    expect(body.error).toBe('INVALID_TOKEN');
    expect(headers.get('www-authenticate')).toBe('Bearer');
  });

  it('when a token lacks the scope, then the 403 carries error="insufficient_scope"', async () => {
    const config = configuration(oidc.ClientSecretPost(client.client_secret));
    const { access_token } = await oidc.clientCredentialsGrant(config);
    const { status, headers } = await getJson(
      `${gateway.url}/api/v1/members/1`,
      bearer(access_token),
    );
    expect(status).toBe(403);
    expect(headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope"');
  });

  it('when Basic carries the form-urlencoded id (ck%5F...), then the token is issued', async () => {
    const encodedKey = client.client_key.replace('_', '%5F');
    expect(encodedKey).not.toBe(client.client_key);
    const { status, body } = await getJson(`${gateway.url}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: basic(encodedKey, encodeURIComponent(client.client_secret)),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(status).toBe(200);
    expect(body.access_token).toEqual(expect.any(String));
  });

  it('when Basic carries a wrong secret, then invalid_client answers 401 with WWW-Authenticate: Basic', async () => {
    const { status, headers, body } = await getJson(`${gateway.url}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: basic(client.client_key, 'wrong'),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(status).toBe(401);
    expect(body.error).toBe('invalid_client');
    expect(headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('when the OpenAPI document is read, then it has /oauth/token and an OAuth 2.0 client-credentials scheme', async () => {
    const { body } = await getJson(`${gateway.url}/api/v1/openapi.json`);
    expect(body.paths['/oauth/token'].post).toBeDefined();
    expect(body.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe(
      '/oauth/token',
    );
  });
});
