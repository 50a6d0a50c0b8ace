// A partner's portal session on two gateways ends with the client's tokens: within 1 s of an
// operator's revoke-tokens, disable or rotate-secret (a bound on the time, so this file runs in the
// timed group), when the overlap of a rotation ends, or at once when the partner ends the overlap
// it began; the partner's own rotation keeps it signed in. Links, one client's pages, CSRF and
// sign-out: portal-security.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientEpochs } from '../../gateway/src/trust/client-epochs.js';
import { createClientSecrets } from '../../gateway/src/trust/client-secrets.js';
import {
  applyClientAction,
  rotateSecretAs,
  type ClientAction,
} from '../../gateway/src/features/clients/clients.service.js';
import { ConsoleBrowser } from '../support/console-session.js';
import {
  createTestEnvironment,
  TEST_SECRETS_KEY,
  type TestEnvironment,
} from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  startGateway,
  type RunningGateway,
  type TestClient,
} from '../support/gateway.js';
import { partnerSignedIn } from '../support/portal-session.js';
import { eventually } from '../support/eventually.js';

let env: TestEnvironment;
let gateway: RunningGateway;
let second: RunningGateway;

const SCOPES = ['members:read', 'webhooks:manage'] as const;

beforeAll(async () => {
  env = await createTestEnvironment();
  gateway = await startGateway(env);
  second = await startGateway(env);
});

afterAll(async () => {
  await gateway?.close();
  await second?.close();
  await env?.destroy();
});

const partner = (name = 'partner') => createTestClient(gateway.db, { name, scopes: [...SCOPES] });
const signedIn = (client: TestClient, on = gateway) => partnerSignedIn(on, env.redisPrefix, client);

describe('a partner session and the client’s tokens', () => {
  const deps = () => ({
    db: gateway.db,
    epochs: createClientEpochs(gateway.redis, env.redisPrefix),
    secrets: createClientSecrets([TEST_SECRETS_KEY]),
  });
  const operator = { actor: 'test', source: 'cli', address: null } as const;

  it.each(['revoke-tokens', 'disable', 'rotate-secret'] as const)(
    'when the operator runs %s, then the session is refused on both gateways within 1 s',
    async (action: ClientAction) => {
      const client = await partner(action);
      const browser = await signedIn(client);
      const elsewhere = new ConsoleBrowser(second);
      elsewhere.cookie = browser.cookie;
      expect((await browser.get('/portal/overview')).status).toBe(200);
      expect((await elsewhere.get('/portal/overview')).status).toBe(200);

      await applyClientAction(deps(), operator, action, client.client_key);
      const ended = Date.now();
      await eventually(
        async () => {
          expect((await browser.get('/portal/overview')).status).toBe(401);
          expect(
            (
              await new ConsoleBrowser(second).request('/portal/overview', {
                headers: { cookie: elsewhere.cookie },
              })
            ).status,
          ).toBe(401);
        },
        1000,
        50,
      );
      expect(Date.now() - ended).toBeLessThan(1000);
      const page = await new ConsoleBrowser(second).request('/portal/overview', {
        headers: { cookie: elsewhere.cookie },
      });
      expect(page.status).toBe(401);
    },
  );

  it('when the partner rotates its own secret in the portal, then it sees the new secret once and stays signed in, and the new secret issues tokens', async () => {
    const client = await partner();
    const oldToken = await issueToken(gateway, client);
    const browser = await signedIn(client);
    await browser.get('/portal/credentials');
    const rotated = await browser.post('/portal/credentials/rotate-secret');
    expect(rotated.status).toBe(200);
    const secret = /<dt>client_secret<\/dt><dd><code>([^<]+)<\/code>/.exec(rotated.html)![1]!;
    expect((await browser.get('/portal/credentials')).html).not.toContain(secret);
    expect((await browser.get('/portal/overview')).status).toBe(200);
    expect((await getJson(`${gateway.url}/api/v1/usage`, bearer(oldToken))).status).toBe(401);
    const token = await issueToken(gateway, { ...client, client_secret: secret });
    expect((await getJson(`${second.url}/api/v1/usage`, bearer(token))).status).toBe(200);
    const audit = await gateway.db.operatorAudit.findFirstOrThrow({
      where: { client_key: client.client_key, action: 'clients.rotate-secret' },
    });
    expect([audit.source, audit.actor]).toEqual(['portal', `partner ${client.client_key}`]);
  });

  it('when the operator rotates with an overlap, then sessions begun under the old secret open pages until the overlap ends, on both gateways, and later ones go on', async () => {
    const client = await partner('overlap');
    const before = await signedIn(client);
    const elsewhere = await signedIn(client, second);
    await rotateSecretAs(deps(), operator, client.client_key, { overlapMs: 3000 });
    const after = await signedIn(client, second);
    for (const browser of [before, elsewhere, after])
      expect((await browser.get('/portal/overview')).status).toBe(200);
    await eventually(async () => {
      expect((await before.get('/portal/overview')).status).toBe(401);
      expect((await elsewhere.get('/portal/overview')).status).toBe(401);
    }, 8000);
    expect((await after.get('/portal/overview')).status).toBe(200);
  });

  it('when the partner rotates with an overlap in the portal and then ends it, then its other sessions and the old secret end at that moment, and it stays signed in', async () => {
    const client = await partner('own overlap');
    const oldToken = await issueToken(gateway, client);
    const browser = await signedIn(client);
    const colleague = await signedIn(client, second);
    await browser.get('/portal/credentials');
    const rotated = await browser.post('/portal/credentials/rotate-secret', { overlap: '24h' });
    expect(rotated.status).toBe(200);
    const secret = /<dt>client_secret<\/dt><dd><code>([^<]+)<\/code>/.exec(rotated.html)![1]!;
    expect(rotated.html).toContain('End previous secret now');
    const until = (await gateway.db.apiClient.findUniqueOrThrow({ where: { id: client.id } }))
      .previous_secret_until!;
    expect(until.getTime() - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    expect((await colleague.get('/portal/overview')).status).toBe(200);
    expect((await getJson(`${second.url}/api/v1/usage`, bearer(oldToken))).status).toBe(200);

    const ended = await browser.post('/portal/credentials/end-previous-secret');
    expect(ended.status).toBe(200);
    expect(ended.html).not.toContain('End previous secret now');
    expect((await colleague.get('/portal/overview')).status).toBe(401);
    expect((await getJson(`${second.url}/api/v1/usage`, bearer(oldToken))).status).toBe(401);
    expect((await browser.get('/portal/overview')).status).toBe(200);
    const token = await issueToken(gateway, { ...client, client_secret: secret });
    expect((await getJson(`${second.url}/api/v1/usage`, bearer(token))).status).toBe(200);
    const audit = await gateway.db.operatorAudit.findMany({
      where: { client_key: client.client_key, action: { startsWith: 'clients.' } },
      orderBy: { id: 'asc' },
    });
    expect(audit.map((r) => [r.action, r.source, r.actor])).toEqual([
      ['clients.rotate-secret', 'portal', `partner ${client.client_key}`],
      ['clients.end-previous-secret', 'portal', `partner ${client.client_key}`],
    ]);
    expect(audit[0]!.target).toBe(`previous secret until ${until.toISOString()}`);

    // An overlap the page does not offer is refused with the form's error.
    const odd = await browser.post('/portal/credentials/rotate-secret', { overlap: '30d' });
    expect(odd.status).toBe(400);
    expect(odd.html).toContain('class="notice error"');
  });
});
