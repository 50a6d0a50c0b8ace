// The issuance limit (TOKEN_ISSUE_PER_MINUTE) is the client's own: only its good and current
// credentials count against it, and a client at its limit is refused before its secret is
// checked. See docs/decisions/0003-tokens.md.
import { request } from 'node:http';
import { describe, expect } from 'vitest';
import { sha256 } from '../../gateway/src/trust/client-secrets.js';
import { gatewayTest } from '../support/fixtures.js';
import { createTestClient, issueTokenPair, type RunningGateway } from '../support/gateway.js';

const PER_MINUTE = 3;
const it = gatewayTest({
  TOKEN_ISSUE_PER_MINUTE: String(PER_MINUTE),
  AUTH_FAILED_ATTEMPTS_PER_MINUTE: '10000',
});

/** A POST to `via` from a loopback address of the test's choosing. */
function post(
  via: RunningGateway,
  from: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${via.url}${path}`,
      { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('issuance limit', () => {
  it("when an expired refresh token is sent again and again from another address, then the partner's token request is still 200", async ({
    gateway,
  }) => {
    const client = await createTestClient(gateway.db);
    const pair = await issueTokenPair(gateway, client);
    await gateway.db.apiToken.updateMany({
      where: { refresh_token_hash: sha256(pair.refresh_token) },
      data: { refresh_expires_at: new Date(Date.now() - 1000) },
    });
    for (let i = 0; i < 2 * PER_MINUTE; i++) {
      const answer = await post(gateway, '127.0.0.61', '/api/v1/auth/refresh', {
        refresh_token: pair.refresh_token,
      });
      expect(answer.status).toBe(401);
      expect(answer.body.error).toBe('INVALID_TOKEN');
    }
    const own = await post(gateway, '127.0.0.62', '/api/v1/auth/token', {
      client_key: client.client_key,
      client_secret: client.client_secret,
    });
    expect(own.status).toBe(200);
  });

  it('when a client is at its limit, then any secret for it is 429 without being checked', async ({
    gateway,
  }) => {
    const client = await createTestClient(gateway.db);
    for (let i = 0; i < PER_MINUTE; i++) await issueTokenPair(gateway, client);
    const credentials = (secret: string) => ({
      client_key: client.client_key,
      client_secret: secret,
    });
    const right = await post(
      gateway,
      '127.0.0.63',
      '/api/v1/auth/token',
      credentials(client.client_secret),
    );
    expect(right.status).toBe(429);
    const wrong = await post(
      gateway,
      '127.0.0.63',
      '/api/v1/auth/token',
      credentials('not-the-secret'),
    );
    expect(wrong.status).toBe(429);
    expect(wrong.body.error).toBe('RATE_LIMIT_EXCEEDED');
    expect(await gateway.db.apiToken.count({ where: { client_id: client.id } })).toBe(PER_MINUTE);
  });
});
