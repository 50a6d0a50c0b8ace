// The partner portal from outside: portal links from the CLI and the console (single-use, a mail
// scanner's GET does not spend them, recorded in the operator audit), one client's pages only
// (another's subscription is not found, the console stays closed), forms refused without the
// CSRF token or from another origin, partner text shown as text (the edit form's values too), the
// usage CSV equal to GET /api/v1/usage, and sessions ended by signing out or by disabling the
// client. No assertion here times anything; a session ending on two gateways within 1 s with the
// client's tokens is portal-sessions-end.test.ts's, in the timed group.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyClientAction } from '../../gateway/src/features/clients/clients.service.js';
import { PORTAL_REQUESTS_PER_MINUTE } from '../../gateway/src/features/portal/portal-limit.js';
import { createWebhookService } from '../../gateway/src/features/webhooks/webhooks.service.js';
import { createClientEpochs } from '../../gateway/src/trust/client-epochs.js';
import { createClientSecrets } from '../../gateway/src/trust/client-secrets.js';
import { createSignInLink } from '../../gateway/src/pages/sign-in-links.js';
import { ConsoleBrowser } from '../support/console-session.js';
import {
  createTestEnvironment,
  testLinkKeys,
  TEST_SECRETS_KEY,
  type TestEnvironment,
} from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  postJson,
  startGateway,
  type RunningGateway,
  type TestClient,
} from '../support/gateway.js';
import { operatorCliWith } from '../support/operator-cli.js';
import { partnerSignedIn, portalLinkToken, usageCsvLines } from '../support/portal-session.js';
import { eventually } from '../support/eventually.js';

let env: TestEnvironment;
let gateway: RunningGateway;

const SCOPES = ['members:read', 'webhooks:manage'] as const;
const SETTINGS = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };

beforeAll(async () => {
  env = await createTestEnvironment();
  gateway = await startGateway(env, SETTINGS);
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

const partner = (name = 'partner') => createTestClient(gateway.db, { name, scopes: [...SCOPES] });
const signedIn = (client: TestClient, on = gateway) => partnerSignedIn(on, env.redisPrefix, client);

describe('portal links', () => {
  it('when `npm run clients -- portal-link KEY` prints a URL, then GETs only show the button, its POST opens the portal once, and the operator audit records both', async () => {
    const client = await partner();
    const printed = JSON.parse(
      await operatorCliWith(
        env,
        { PUBLIC_BASE_URL: gateway.url },
        'clients',
        'portal-link',
        client.client_key,
        '--ttl',
        '5m',
        '--json',
      ),
    );
    expect(printed.url).toMatch(new RegExp(`^${gateway.url}/portal/sign-in/[A-Za-z0-9_-]{43}$`));
    const path = new URL(printed.url).pathname;
    const browser = new ConsoleBrowser(gateway);
    const beside = new ConsoleBrowser(gateway);
    for (const scanner of [browser, browser, beside]) {
      const opened = await scanner.get(path);
      expect(opened.status).toBe(200);
      expect(opened.html).toContain(client.client_key);
      expect(opened.html).toMatch(/<button type="submit">Open the portal<\/button>/);
    }
    const used = await browser.post(path);
    expect([used.status, used.headers.get('location')]).toEqual([303, '/portal/overview']);
    const overview = await browser.get('/portal/overview');
    expect(overview.status).toBe(200);
    expect(overview.html).toContain(client.client_key);

    // The second press of the same link, from a page opened before the first.
    const reused = await beside.post(path);
    expect(reused.status).toBe(410);
    expect(reused.html).toContain('This portal link does not work');
    expect((await beside.get('/portal/overview')).status).toBe(401);
    expect((await new ConsoleBrowser(gateway).get(path)).status).toBe(410);

    const audit = await gateway.db.operatorAudit.findMany({
      where: { client_key: client.client_key },
      orderBy: { id: 'asc' },
    });
    expect(audit.map((r) => [r.action, r.source])).toEqual([
      ['portal.link', 'cli'],
      ['portal.sign-in', 'portal'],
    ]);
  });

  it('when a link is edited, made up, expired, or is a console link, then it is refused; a portal link does not open the console', async () => {
    const client = await partner();
    const valid = await portalLinkToken(gateway, env.redisPrefix, client);
    const expired = await portalLinkToken(gateway, env.redisPrefix, client, 200);
    const consoleLink = await createSignInLink(
      gateway.redis,
      testLinkKeys(env.redisPrefix),
      { name: 'x' },
      60_000,
    );
    // Waits for the link's lifetime to pass, as Redis keeps it.
    await eventually(async () =>
      expect((await new ConsoleBrowser(gateway).get(`/portal/sign-in/${expired}`)).status).toBe(
        410,
      ),
    );
    const edited = `${valid.slice(0, -1)}${valid.endsWith('A') ? 'B' : 'A'}`;
    // A session's CSRF token, from the portal's sign-in page, for the posts below.
    const browser = new ConsoleBrowser(gateway);
    await browser.get(`/portal/sign-in/${valid}`);
    for (const token of [edited, expired, consoleLink, 'y'.repeat(43), 'made-up']) {
      const opened = await new ConsoleBrowser(gateway).get(`/portal/sign-in/${token}`);
      expect(opened.status, token).toBe(410);
      expect(opened.html).toContain('This portal link does not work');
      expect((await browser.post(`/portal/sign-in/${token}`)).status, token).toBe(410);
    }
    const operator = new ConsoleBrowser(gateway);
    await operator.get(`/console/sign-in/${consoleLink}`);
    expect((await operator.get(`/console/sign-in/${valid}`)).status).toBe(410);
    expect((await operator.post(`/console/sign-in/${valid}`)).status).toBe(410);
    // The valid link was never spent by any of that.
    expect((await browser.post(`/portal/sign-in/${valid}`)).status).toBe(303);
  });

  it("when the client's tokens end (revoke-tokens, rotate-secret, disable and enable again) or the operator revokes every link, then a link made before does not open; one made after does", async () => {
    const deps = {
      db: gateway.db,
      epochs: createClientEpochs(gateway.redis, env.redisPrefix),
      secrets: createClientSecrets([TEST_SECRETS_KEY]),
    };
    const operator = { actor: 'test', source: 'cli', address: null } as const;
    const endings: [string, (key: string) => Promise<unknown>][] = [
      ['revoke-tokens', (key) => applyClientAction(deps, operator, 'revoke-tokens', key)],
      ['rotate-secret', (key) => applyClientAction(deps, operator, 'rotate-secret', key)],
      [
        'disable, enable',
        async (key) => {
          await applyClientAction(deps, operator, 'disable', key);
          await applyClientAction(deps, operator, 'enable', key);
        },
      ],
      [
        'portal-link --revoke-all',
        (key) => operatorCliWith(env, {}, 'clients', 'portal-link', key, '--revoke-all'),
      ],
    ];
    for (const [ending, end] of endings) {
      const client = await partner(ending);
      const [opened, unopened] = [
        await portalLinkToken(gateway, env.redisPrefix, client),
        await portalLinkToken(gateway, env.redisPrefix, client),
      ];
      // One opened before the ending: its confirm page shown, the button not yet pressed.
      const browser = new ConsoleBrowser(gateway);
      expect((await browser.get(`/portal/sign-in/${opened}`)).status, ending).toBe(200);
      await end(client.client_key);
      if (ending === 'portal-link --revoke-all') {
        const recorded = { client_key: client.client_key, action: 'portal.links-revoked' };
        expect(await gateway.db.operatorAudit.count({ where: recorded })).toBe(1);
      }
      for (const token of [opened, unopened]) {
        const page = await new ConsoleBrowser(gateway).get(`/portal/sign-in/${token}`);
        expect(page.status, ending).toBe(410);
        expect((await browser.post(`/portal/sign-in/${token}`)).status, ending).toBe(410);
      }
      const after = await portalLinkToken(gateway, env.redisPrefix, client);
      expect((await browser.get(`/portal/sign-in/${after}`)).status, ending).toBe(200);
      expect((await browser.post(`/portal/sign-in/${after}`)).status, ending).toBe(303);
    }
  });

  it("when the operator presses a client's Portal link button, then the console shows a link that opens that client's portal, recorded in the operator audit", async () => {
    const client = await partner('console-made');
    const operator = new ConsoleBrowser(gateway);
    await operator.signIn(env.redisPrefix, 'Zeynep');
    const clients = await operator.get('/console/clients');
    expect(clients.html).toContain(`aria-label="Portal link: console-made"`);
    const made = await operator.post(`/console/clients/${client.client_key}/portal-link`);
    expect(made.status).toBe(200);
    const url = /<code>(http[^<]+\/portal\/sign-in\/[^<]+)<\/code>/.exec(made.html)![1]!;
    const path = new URL(url).pathname;
    const browser = new ConsoleBrowser(gateway);
    await browser.get(path);
    expect((await browser.post(path)).status).toBe(303);
    expect((await browser.get('/portal/overview')).html).toContain(client.client_key);
    const recorded = await gateway.db.operatorAudit.findFirstOrThrow({
      where: { client_key: client.client_key, action: 'portal.link' },
    });
    expect([recorded.source, recorded.actor]).toEqual(['console', 'Zeynep']);

    const unknown = await operator.post('/console/clients/no-such-key/portal-link');
    expect(unknown.status).toBe(400);
    expect(unknown.html).toContain('no client with key no-such-key');
  });
});

describe("one client's portal", () => {
  it("when a partner asks for another client's subscription, then it is not found, and nothing of it changes", async () => {
    const [a, b] = [await partner('a'), await partner('b')];
    const created = await postJson(
      `${gateway.url}/api/v1/webhooks`,
      { url: 'http://127.0.0.1:8080/b', types: ['members'] },
      bearer(await issueToken(gateway, b)).headers,
    );
    expect(created.status).toBe(201);
    const id = created.body.data.id as number;
    const before = await gateway.db.webhookSubscription.findUniqueOrThrow({ where: { id } });

    const browser = await signedIn(a);
    await browser.get('/portal/webhooks');
    expect((await browser.get(`/portal/webhooks/${id}`)).status).toBe(404);
    const form = { since: '2026-01-01T00:00', url: 'http://127.0.0.1:8080/a', description: 'a' };
    for (const action of ['rotate-secret', 'enable', 'replay', 'test', 'edit'])
      expect((await browser.post(`/portal/webhooks/${id}/${action}`, form)).status, action).toBe(
        404,
      );
    expect(await gateway.db.webhookSubscription.findUniqueOrThrow({ where: { id } })).toEqual(
      before,
    );
    const api = await getJson(
      `${gateway.url}/api/v1/webhooks/${id}`,
      bearer(await issueToken(gateway, a)),
    );
    expect(api.status).toBe(404);
  });

  it('when a partner is signed in, then the console is closed to it, and an operator session does not open the portal', async () => {
    const client = await partner();
    const browser = await signedIn(client);
    expect((await browser.get('/console/clients')).status).toBe(401);
    expect((await browser.get('/console/webhooks')).status).toBe(401);
    const operator = new ConsoleBrowser(gateway);
    await operator.signIn(env.redisPrefix);
    expect((await operator.get('/console/clients')).status).toBe(200);
    expect((await operator.get('/portal/overview')).status).toBe(401);
    const cookie = browser.setCookies.at(-1)!;
    expect(cookie).toMatch(/^portal=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
  });

  it('when a form is posted without the CSRF token or from another origin, then it is 403 and nothing is made', async () => {
    const client = await partner();
    const browser = await signedIn(client);
    await browser.get('/portal/webhooks');
    const form = { url: 'http://127.0.0.1:8080/refused' };
    const refusals = [
      await browser.post('/portal/webhooks', form, { csrf: null }),
      await browser.post('/portal/webhooks', form, { csrf: 'f'.repeat(64) }),
      await browser.post('/portal/webhooks', form, { origin: 'https://evil.example' }),
      await browser.post('/portal/webhooks', form, { origin: null }),
      await browser.post('/portal/credentials/rotate-secret', {}, { csrf: null }),
    ];
    expect(refusals.map((r) => r.status)).toEqual([403, 403, 403, 403, 403]);
    expect(await gateway.db.webhookSubscription.count({ where: { client_id: client.id } })).toBe(0);
    const made = await browser.post('/portal/webhooks', form);
    expect(made.status).toBe(200);
    expect(made.html).toMatch(/whsec_/);

    // A subscription's test and edit, and ending a rotation's overlap, are refused alike.
    const { id } = await gateway.db.webhookSubscription.findFirstOrThrow({
      where: { client_id: client.id },
    });
    await browser.post('/portal/credentials/rotate-secret', { overlap: '1h' });
    const before = await gateway.db.apiClient.findUniqueOrThrow({ where: { id: client.id } });
    const edit = { url: 'http://127.0.0.1:8080/moved', description: 'moved' };
    const actions = [
      [`/portal/webhooks/${id}/test`, {}],
      [`/portal/webhooks/${id}/edit`, edit],
      ['/portal/credentials/end-previous-secret', {}],
    ] as const;
    for (const [path, body] of actions)
      for (const options of [{ csrf: null }, { origin: 'https://evil.example' }, { origin: null }])
        expect((await browser.post(path, body, options)).status, path).toBe(403);
    const after = await gateway.db.webhookSubscription.findUniqueOrThrow({ where: { id } });
    expect([after.url, after.description, after.tests_in_window]).toEqual([form.url, null, 0]);
    expect(
      (await gateway.db.apiClient.findUniqueOrThrow({ where: { id: client.id } }))
        .previous_secret_until,
    ).toEqual(before.previous_secret_until);
    expect(before.previous_secret_until).not.toBeNull();
  });

  it("when the partner's text and its endpoint's answer hold markup, then the pages show them as text", async () => {
    const client = await partner();
    const browser = await signedIn(client);
    await browser.get('/portal/webhooks');
    const description = '<img src=x onerror=alert(1)>';
    const made = await browser.post('/portal/webhooks', {
      url: 'http://127.0.0.1:8080/markup?a=<b>',
      description,
    });
    expect(made.status).toBe(200);
    const subscription = await gateway.db.webhookSubscription.findFirstOrThrow({
      where: { client_id: client.id },
    });
    const event = await gateway.db.webhookEvent.create({
      data: {
        subscription_id: subscription.id,
        event_type: 'members.upsert',
        body: '{}',
        changed_at: new Date(),
        status: 'failed',
      },
    });
    await gateway.db.webhookAttempt.create({
      data: {
        event_id: event.id,
        subscription_id: subscription.id,
        outcome: 'http_error',
        status_code: 500,
        duration_ms: 12,
        response: '<script>alert(1)</script><b>bold</b>',
      },
    });
    const page = await browser.get(`/portal/webhooks/${subscription.id}`);
    expect(page.html).toContain('&lt;script>alert(1)&lt;/script>&lt;b>bold&lt;/b>');
    const list = await browser.get('/portal/webhooks');
    expect(list.html).toContain('&lt;img src=x onerror=alert(1)>');
    for (const html of [page.html, list.html]) {
      const outsideAttributes = html.replace(/="[^"]*"/g, '=""');
      expect(outsideAttributes).not.toMatch(/<img|<b>|<script>alert/);
    }
    const failedOnly = await browser.get(`/portal/webhooks/${subscription.id}?outcome=delivered`);
    expect(failedOnly.html).toContain('No tries.');

    // Edited: the form shows the new text as its values, and a refusal names the input as text.
    const edited = await browser.post(`/portal/webhooks/${subscription.id}/edit`, {
      url: 'http://127.0.0.1:8080/markup?a=<b>',
      description: '"><script>alert(2)</script>',
    });
    expect(edited.status).toBe(200);
    expect(
      (await gateway.db.webhookSubscription.findUniqueOrThrow({ where: { id: subscription.id } }))
        .description,
    ).toBe('"><script>alert(2)</script>');
    const refused = await browser.post(`/portal/webhooks/${subscription.id}/edit`, {
      url: 'javascript:<svg onload=alert(3)>',
      types: '<b>x</b>',
    });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('class="notice error"');
    for (const html of [edited.html, refused.html]) {
      expect(html).not.toContain('"><script>');
      const outsideAttributes = html.replace(/="[^"]*"/g, '=""');
      expect(outsideAttributes).not.toMatch(/<img|<b>|<script>alert|<svg/);
    }
  });

  it('when a subscription was disabled by failures, then the partner enables it in the portal; one the operator disabled stays disabled, saying why', async () => {
    const client = await partner();
    const browser = await signedIn(client);
    await browser.get('/portal/webhooks');
    await browser.post('/portal/webhooks', { url: 'http://127.0.0.1:8080/enable' });
    await browser.post('/portal/webhooks', { url: 'http://127.0.0.1:8080/held' });
    const [failing, held] = await gateway.db.webhookSubscription.findMany({
      where: { client_id: client.id },
      orderBy: { id: 'asc' },
    });
    const service = createWebhookService(gateway.db, env.config());
    await service.setEnabled(null, failing!.id, false, 'failing');
    await service.setEnabled(null, held!.id, false);

    const page = await browser.get(`/portal/webhooks/${failing!.id}`);
    expect(page.html).toContain('disabled (failing)');
    const enabled = await browser.post(`/portal/webhooks/${failing!.id}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.html).toContain(`Subscription ${failing!.id} enabled`);
    const refused = await browser.post(`/portal/webhooks/${held!.id}/enable`);
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('role="alert"');
    expect(refused.html).toMatch(/operatör/);
    const states = await gateway.db.webhookSubscription.findMany({
      where: { client_id: client.id },
      orderBy: { id: 'asc' },
    });
    expect(states.map((s) => [s.enabled, s.disabled_reason])).toEqual([
      [true, null],
      [false, 'operator'],
    ]);
  });

  it('when usage was counted, then the CSV download equals GET /api/v1/usage for the same range, and a bad range is refused with a page', async () => {
    const client = await partner();
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 2 * 3_600_000);
    await gateway.db.usageHour.createMany({
      data: [
        ['GET /api/v1/members', 200, 120],
        ['GET /api/v1/members', 429, 7],
        ['GET /api/v1/branches', 500, 2],
      ].map(([operation, status, requests]) => ({
        hour,
        client_id: client.id,
        operation: String(operation),
        status: Number(status),
        requests: Number(requests),
        bytes_out: 100,
      })),
    });
    const browser = await signedIn(client);
    const page = await browser.get('/portal/usage');
    const href = /href="(\/portal\/usage\.csv\?[^"]*group_by=operation)"/.exec(page.html)![1]!;
    const csv = await browser.get(href.replaceAll('&amp;', '&'));
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const query = new URL(href.replaceAll('&amp;', '&'), gateway.url).search;
    const api = await getJson(
      `${gateway.url}/api/v1/usage${query}`,
      bearer(await issueToken(gateway, client)),
    );
    expect(api.status).toBe(200);
    const [header, ...lines] = csv.html.trim().split('\n');
    expect(header).toBe(
      'period_start,operation,requests,client_errors,server_errors,rate_limited,bytes_out,p50_ms,p95_ms,p99_ms',
    );
    const expected = usageCsvLines(api.body.data.rows);
    expect(expected.length).toBe(2);
    expect(lines).toEqual(expected);

    const refused = await browser.get('/portal/usage.csv?from=2020-01-01T00:00:00Z');
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('from');
  });
  it("when a live client posts the sandbox quick start's forms, then they are not found and nothing is made", async () => {
    const client = await partner('live');
    const browser = await signedIn(client);
    await browser.get('/portal/overview');
    const forms = [
      ['/portal/quick-start/webhook', { url: 'http://127.0.0.1:8080/quick-start' }],
      ['/portal/quick-start/change', { type: 'members' }],
    ] as const;
    for (const [path, form] of forms) {
      const answer = await browser.post(path, form);
      expect([path, answer.status]).toEqual([path, 404]);
      expect(answer.html).toContain('There is no such page here');
    }
    expect(await gateway.db.webhookSubscription.count({ where: { client_id: client.id } })).toBe(0);
  });
});

describe('portal request limit', () => {
  it(`when a partner posts or downloads usage more than ${PORTAL_REQUESTS_PER_MINUTE} times in a minute, then the next is 429 with Retry-After; pages still show, and another client is not held back`, async () => {
    const client = await partner();
    const browser = await signedIn(client);
    await browser.get('/portal/webhooks');
    const csv = '/portal/usage.csv';
    for (let n = 0; n < PORTAL_REQUESTS_PER_MINUTE; n++) {
      expect((await browser.get(csv)).status, `download ${n + 1}`).toBe(200);
    }
    const refused = await browser.get(csv);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.html).toContain('Too many requests');
    const posted = await browser.post('/portal/webhooks', { url: 'http://127.0.0.1:8080/limited' });
    expect(posted.status).toBe(429);
    expect(await gateway.db.webhookSubscription.count({ where: { client_id: client.id } })).toBe(0);
    expect((await browser.get('/portal/overview')).status).toBe(200);

    const other = await signedIn(await partner('other'));
    expect((await other.get(csv)).status).toBe(200);
  });
});

describe('portal sessions', () => {
  it('when the partner signs out, then the session no longer opens a page, and the operator audit records it', async () => {
    const client = await partner();
    const browser = await signedIn(client);
    await browser.get('/portal/overview');
    const signedOut = await browser.post('/portal/sign-out');
    expect(signedOut.status).toBe(303);
    // The browser drops its copies of the portal's pages (htmx's history cache among them).
    expect(signedOut.headers.get('clear-site-data')).toBe('"cache", "storage"');
    expect((await browser.get('/portal/overview')).status).toBe(401);
    const records = await gateway.db.operatorAudit.findMany({
      where: { action: 'portal.sign-out', client_key: client.client_key },
    });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ actor: `partner ${client.client_key}`, source: 'portal' });
    // Signing out again, with no session, records nothing more.
    await browser.post('/portal/sign-out');
    expect(
      await gateway.db.operatorAudit.count({
        where: { action: 'portal.sign-out', client_key: client.client_key },
      }),
    ).toBe(1);
  });

  it('when the client is disabled, then no portal link is made for it, and one made before does not open', async () => {
    const client = await partner();
    const before = await portalLinkToken(gateway, env.redisPrefix, client);
    // Opened before the disable: its confirm page shown, the button not yet pressed.
    const browser = new ConsoleBrowser(gateway);
    expect((await browser.get(`/portal/sign-in/${before}`)).status).toBe(200);
    const operator = new ConsoleBrowser(gateway);
    await operator.signIn(env.redisPrefix);
    await operator.get('/console/clients');
    await operator.post(`/console/clients/${client.client_key}/disable`);
    const refused = await operator.post(`/console/clients/${client.client_key}/portal-link`);
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('is disabled');
    expect((await browser.get(`/portal/sign-in/${before}`)).status).toBe(410);
    expect((await browser.post(`/portal/sign-in/${before}`)).status).toBe(410);
  });

  it('when CONSOLE=off, then the portal and its assets are not served', async () => {
    const off = await startGateway(env, { CONSOLE: 'off' });
    try {
      for (const path of ['/portal', '/portal/overview', '/portal/assets/htmx.min.js']) {
        const answer = await fetch(`${off.url}${path}`);
        expect(answer.status, path).toBe(404);
        expect(answer.headers.get('set-cookie')).toBeNull();
      }
    } finally {
      await off.close();
    }
  });
});
