// Client secrets stored by earlier versions as scrypt hashes (docs/decisions/0003-tokens.md): a
// gateway on such a database issues tokens to every client, and each client's first successful
// token request stores its secret again as an HMAC under SECRETS_KEY, so no scrypt is left.
// Rotating SECRETS_KEY: a secret stored under the key now second moves to the first on use.
import { randomBytes, scryptSync } from 'node:crypto';
import { describe, expect } from 'vitest';
import { TEST_SECRETS_KEY } from '../support/environment.js';
import { gatewayTest } from '../support/fixtures.js';
import { postJson, startGateway, type RunningGateway } from '../support/gateway.js';

const CLIENTS = 6;
const NEW_KEY = Buffer.from('a second key, put first, 32 byte').toString('base64');

const it = gatewayTest({ AUTH_FAILED_ATTEMPTS_PER_MINUTE: '10000' });

/** The stored form of earlier versions: scrypt$N$r$p$salt$hash (N=16384, r=8, p=1). */
function scryptForm(secret: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(secret, salt, 32, { N: 16384, r: 8, p: 1 });
  return ['scrypt', 16384, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** A client as an earlier version stored it. */
async function olderClient(via: RunningGateway, i: number) {
  const secret = randomBytes(32).toString('base64url');
  const row = await via.db.apiClient.create({
    data: {
      name: `older ${i}`,
      client_key: `ck_older_${randomBytes(8).toString('hex')}`,
      secret_hash: scryptForm(secret),
      scopes: ['members:list'],
    },
  });
  return { id: row.id, client_key: row.client_key, client_secret: secret };
}

const token = (via: RunningGateway, key: string, secret: string) =>
  postJson(`${via.url}/api/v1/auth/token`, { client_key: key, client_secret: secret });

const storedHash = async (via: RunningGateway, id: number) =>
  (await via.db.apiClient.findUniqueOrThrow({ where: { id } })).secret_hash;

describe('client secrets stored as scrypt hashes', () => {
  it('when every such client asks for a token once, then each gets one and no scrypt hash is left', async ({
    gateway,
  }) => {
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) => olderClient(gateway, i)),
    );
    const wrong = await token(gateway, clients[0]!.client_key, 'not-the-secret');
    expect(wrong.status).toBe(401);
    expect(await storedHash(gateway, clients[0]!.id)).toMatch(/^scrypt\$/);

    const answers = await Promise.all(
      clients.map((client) => token(gateway, client.client_key, client.client_secret)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(clients.map(() => 200));
    const rows = await gateway.db.apiClient.findMany({ select: { secret_hash: true } });
    expect(rows.filter((row) => row.secret_hash.startsWith('scrypt$'))).toEqual([]);
    for (const client of clients) {
      expect(await storedHash(gateway, client.id)).toMatch(/^hmac-sha256\$[A-Za-z0-9_-]{8}\$/);
      expect(await storedHash(gateway, client.id)).not.toContain(client.client_secret);
      // The new form serves the next request, and a wrong secret still fails against it.
      expect((await token(gateway, client.client_key, client.client_secret)).status).toBe(200);
      expect((await token(gateway, client.client_key, `${client.client_secret}x`)).status).toBe(
        401,
      );
    }
  });
});

describe('SECRETS_KEY rotation', () => {
  it('when a new key is put first, then a secret stored under the old one works and moves to the new one', async ({
    env,
    gateway,
  }) => {
    const client = await olderClient(gateway, 99);
    expect((await token(gateway, client.client_key, client.client_secret)).status).toBe(200);
    const underOld = await storedHash(gateway, client.id);

    const rotated = await startGateway(env, {
      SECRETS_KEY: `${NEW_KEY},${TEST_SECRETS_KEY}`,
    });
    try {
      expect((await token(rotated, client.client_key, client.client_secret)).status).toBe(200);
      const underNew = await storedHash(gateway, client.id);
      expect(underNew).toMatch(/^hmac-sha256\$/);
      expect(underNew).not.toBe(underOld);
    } finally {
      await rotated.close();
    }

    const newOnly = await startGateway(env, { SECRETS_KEY: NEW_KEY });
    try {
      expect((await token(newOnly, client.client_key, client.client_secret)).status).toBe(200);
      expect((await token(newOnly, client.client_key, 'wrong')).status).toBe(401);
    } finally {
      await newOnly.close();
    }
  });
});
