// The console's sign-in and sessions from outside: single-use links that a mail scanner's GET does
// not spend, links used, expired, edited or made up refused with a page; forms refused without the
// session's CSRF token or from another origin; the cookie's flags; an idle session ends; partner
// text shown as text; CONSOLE=off removes it all; the operator audit of CLI and console actions.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModelPool } from '#common/databases.js';
import { createSignInLink } from '../../gateway/src/pages/sign-in-links.js';
import { createWebhookService } from '../../gateway/src/features/webhooks/webhooks.service.js';
import { purgeExpired } from '../../worker/src/retention.js';
import { ConsoleBrowser, usageRowsPrinted, usageTotalsShown } from '../support/console-session.js';
import {
  createTestEnvironment,
  TEST_SECRETS_KEY,
  testLinkKeys,
  type TestEnvironment,
} from '../support/environment.js';
import {
  createTestClient,
  insertBranch,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { captureLogs } from '../support/log-capture.js';
import { operatorCliWith } from '../support/operator-cli.js';

let env: TestEnvironment;
let gateway: RunningGateway;

beforeAll(async () => {
  env = await createTestEnvironment();
  gateway = await startGateway(env);
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

const newLink = (ttlMs = 60_000, name = 'Ayşe') =>
  createSignInLink(gateway.redis, testLinkKeys(env.redisPrefix), { name }, ttlMs);

describe('console sign-in links', () => {
  it('when `npm run console -- link` prints a URL, then opening it twice only shows the button, and its POST signs in once', async () => {
    const printed = await operatorCliWith(
      env,
      { PUBLIC_BASE_URL: gateway.url },
      'console',
      'link',
      '--name',
      'Ayşe',
      '--ttl',
      '5m',
      '--json',
    );
    const { url } = JSON.parse(printed);
    expect(url).toMatch(new RegExp(`^${gateway.url}/console/sign-in/[A-Za-z0-9_-]{43}$`));
    // The audit tells whom the link signs in as.
    const made = await gateway.db.operatorAudit.findFirst({
      where: { action: 'console.link' },
      orderBy: { id: 'desc' },
    });
    expect(made).toMatchObject({ source: 'cli', target: 'Ayşe' });
    const path = new URL(url).pathname;
    const browser = new ConsoleBrowser(gateway);

    // A scanner's GETs: each shows the confirm button, none spends the link.
    for (let i = 0; i < 2; i++) {
      const opened = await browser.get(path);
      expect(opened.status).toBe(200);
      expect(opened.html).toContain('Ayşe');
      expect(opened.html).toMatch(/<button type="submit">Sign in<\/button>/);
    }
    const signedIn = await browser.post(path);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/console/clients');
    expect((await browser.get('/console/clients')).status).toBe(200);

    const again = await new ConsoleBrowser(gateway).post(path, {}, { csrf: null });
    expect(again.status).toBe(403);
    const reused = new ConsoleBrowser(gateway);
    const reopened = await reused.get(path);
    expect(reopened.status).toBe(410);
    expect(reopened.html).toContain('This sign-in link does not work');
  });

  it('when a link is posted a second time, then it is refused with the page that says so', async () => {
    const token = await newLink();
    const first = new ConsoleBrowser(gateway);
    await first.get(`/console/sign-in/${token}`);
    const second = new ConsoleBrowser(gateway);
    await second.get(`/console/sign-in/${token}`);
    expect((await first.post(`/console/sign-in/${token}`)).status).toBe(303);
    const refused = await second.post(`/console/sign-in/${token}`);
    expect(refused.status).toBe(410);
    expect(refused.html).toContain('has been used already, has expired, or was never made');
    expect((await second.get('/console/clients')).status).toBe(401);
  });

  it('when a link has expired, is edited by one character or is made up, then it is refused', async () => {
    const expired = await newLink(300);
    const valid = await newLink();
    await sleep(600);
    const edited = `${valid.slice(0, -1)}${valid.endsWith('A') ? 'B' : 'A'}`;
    for (const token of [expired, edited, 'x'.repeat(43), 'made-up', '..%2F..%2Fetc']) {
      const browser = new ConsoleBrowser(gateway);
      const opened = await browser.get(`/console/sign-in/${token}`);
      expect(opened.status, token).toBe(410);
      expect(opened.html).toContain('This sign-in link does not work');
    }
  });

  it('when a link is made, then Redis holds its hash keyed by SECRETS_KEY: a gateway under another key cannot open it, one still listing the key can', async () => {
    const token = await newLink();
    const path = `/console/sign-in/${token}`;
    const unkeyed = createHash('sha256').update(token).digest('base64url');
    expect(await gateway.redis.exists(`${env.redisPrefix}:pages:link:${unkeyed}`)).toBe(0);
    const other = Buffer.alloc(32, 7).toString('base64');
    const elsewhere = await startGateway(env, { SECRETS_KEY: other });
    const rotated = await startGateway(env, { SECRETS_KEY: `${other},${TEST_SECRETS_KEY}` });
    try {
      expect((await new ConsoleBrowser(elsewhere).get(path)).status).toBe(410);
      expect((await new ConsoleBrowser(rotated).get(path)).status).toBe(200);
    } finally {
      await elsewhere.close();
      await rotated.close();
    }
  });

  it('when signed in, then the cookie is HttpOnly and SameSite=Strict, and a page without a session is 401', async () => {
    const browser = new ConsoleBrowser(gateway);
    await browser.signIn(env.redisPrefix);
    const cookie = browser.setCookies.at(-1)!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Path=\//);
    const anonymous = await new ConsoleBrowser(gateway).get('/console/clients');
    expect(anonymous.status).toBe(401);
    expect(anonymous.html).toContain('npm run console -- link');
  });
});

describe('console forms', () => {
  it('when a form is posted without the CSRF token, with another one, from another origin or with no Origin, then it is 403 and nothing changes', async () => {
    const browser = new ConsoleBrowser(gateway);
    await browser.signIn(env.redisPrefix);
    await browser.get('/console/clients');
    const before = await gateway.db.apiClient.count();
    const form = { name: 'refused', scopes: 'members:read' };
    const refusals = [
      await browser.post('/console/clients', form, { csrf: null }),
      await browser.post('/console/clients', form, { csrf: 'f'.repeat(256) }),
      await browser.post('/console/clients', form, { origin: 'https://evil.example' }),
      await browser.post('/console/clients', form, { origin: null }),
      await browser.post('/console/sign-out', {}, { csrf: null }),
    ];
    expect(refusals.map((r) => r.status)).toEqual([403, 403, 403, 403, 403]);
    expect(await gateway.db.apiClient.count()).toBe(before);

    const accepted = await browser.post('/console/clients', form);
    expect(accepted.status).toBe(200);
    expect(accepted.html).toContain('client_secret');
    expect(await gateway.db.apiClient.count()).toBe(before + 1);
  });

  it('when a client is named with markup, then the page shows it as text', async () => {
    const browser = new ConsoleBrowser(gateway);
    await browser.signIn(env.redisPrefix, '<b>operator</b>');
    await browser.get('/console/clients');
    const name = '<img src=x onerror=alert(1)>';
    const created = await browser.post('/console/clients', { name, scopes: 'members:read' });
    expect(created.status).toBe(200);
    expect(created.html).toContain('<td>&lt;img src=x onerror=alert(1)></td>');
    expect(created.html).toContain('<span>&lt;b>operator&lt;/b></span>');
    // Outside quoted attribute values (where `<` is plain text), no tag of theirs is left.
    const outsideAttributes = created.html.replace(/="[^"]*"/g, '=""');
    expect(outsideAttributes).not.toContain('<img');
    expect(outsideAttributes).not.toContain('<b>');
  });

  it('when the operator signs out, then the session no longer opens a page', async () => {
    const browser = new ConsoleBrowser(gateway);
    await browser.signIn(env.redisPrefix);
    await browser.get('/console/clients');
    expect((await browser.post('/console/sign-out')).status).toBe(303);
    expect((await browser.get('/console/clients')).status).toBe(401);
  });
});

describe('console client editing', () => {
  it('when an operator edits scopes, limits and branch, then the client has them as the CLI lists it, each change is audited, and a refused change says why', async () => {
    const client = await createTestClient(gateway.db, { scopes: ['members:list'] });
    await insertBranch(gateway.db, 21);
    const browser = new ConsoleBrowser(gateway);
    await browser.signIn(env.redisPrefix, 'Editor');
    const path = `/console/clients/${client.client_key}/edit`;
    const page = await browser.get(path);
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/value="members:list" checked/);

    const saved = await browser.post(path, {
      scopes: ['members:read', 'staff:read'],
      limits: '5/50/500',
      branch: '21',
    });
    expect(saved.status).toBe(200);
    expect(saved.html).toContain(`${client.client_key}: scopes, limits, branch saved.`);
    const listed = (
      JSON.parse(await operatorCliWith(env, {}, 'clients', 'list', '--json')) as any[]
    ).find((c) => c.client_key === client.client_key);
    expect(listed).toMatchObject({
      scopes: ['members:read', 'staff:read'],
      branch_id: 21,
      rate_limit_minute: 5,
      rate_limit_hour: 50,
      rate_limit_day: 500,
    });
    const audited = await gateway.db.operatorAudit.findMany({
      where: { client_key: client.client_key },
      orderBy: { id: 'asc' },
    });
    expect(audited.map((r) => [r.action, r.actor, r.source])).toEqual([
      ['clients.set-scopes', 'Editor', 'console'],
      ['clients.set-limits', 'Editor', 'console'],
      ['clients.set-branch', 'Editor', 'console'],
    ]);

    const refused = await browser.post(path, {
      scopes: ['members:read', 'staff:read'],
      limits: '5/50/500',
      branch: '99',
    });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('branch 99 does not exist');
    const after = await gateway.db.apiClient.findUniqueOrThrow({ where: { id: client.id } });
    expect(after.branch_id).toBe(21);

    const unchanged = await browser.post(path, {
      scopes: ['members:read', 'staff:read'],
      limits: '',
      branch: '',
    });
    expect(unchanged.html).toContain('limits, branch saved');
    const reset = await gateway.db.apiClient.findUniqueOrThrow({ where: { id: client.id } });
    expect([reset.rate_limit_minute, reset.branch_id]).toEqual([null, null]);
  });
});

describe('console sessions', () => {
  it('when a session is idle longer than CONSOLE_SESSION_IDLE_MINUTES, then it has ended; a request before keeps it alive', async () => {
    const idle = await startGateway(env, { CONSOLE_SESSION_IDLE_MINUTES: String(2 / 60) });
    try {
      const browser = new ConsoleBrowser(idle);
      await browser.signIn(env.redisPrefix);
      for (let i = 0; i < 3; i++) {
        await sleep(1000);
        expect((await browser.get('/console/clients')).status).toBe(200);
      }
      await sleep(2500);
      const ended = await browser.get('/console/clients');
      expect(ended.status).toBe(401);
    } finally {
      await idle.close();
    }
  });

  it('when a session is older than CONSOLE_SESSION_MAX_HOURS, then it has ended whatever its activity', async () => {
    const short = await startGateway(env, { CONSOLE_SESSION_MAX_HOURS: String(2 / 3600) });
    try {
      const browser = new ConsoleBrowser(short);
      await browser.signIn(env.redisPrefix);
      expect((await browser.get('/console/clients')).status).toBe(200);
      await sleep(1200);
      expect((await browser.get('/console/clients')).status).toBe(200);
      await sleep(1200);
      const ended = await browser.get('/console/clients');
      expect(ended.status).toBe(401);
      expect(ended.html).toContain('Your session has ended');
    } finally {
      await short.close();
    }
  });

  it('when CONSOLE=off, then neither the pages nor their assets are served', async () => {
    const off = await startGateway(env, { CONSOLE: 'off' });
    try {
      for (const path of ['/console', '/console/clients', '/console/assets/htmx.min.js']) {
        const answer = await fetch(`${off.url}${path}`);
        expect(answer.status, path).toBe(404);
        expect(answer.headers.get('set-cookie')).toBeNull();
      }
      expect((await fetch(`${gateway.url}/console/assets/htmx.min.js`)).status).toBe(200);
    } finally {
      await off.close();
    }
  });

  it('when a production console is reached over plain HTTP, or through a proxy it does not trust, then its pages say HTTPS is needed, and an http PUBLIC_BASE_URL is warned of once at start', async () => {
    const logs = captureLogs();
    const production = await startGateway(
      env,
      { NODE_ENV: 'production', TRUST_PROXY: 'loopback', PUBLIC_BASE_URL: 'http://api.example' },
      { logger: logs.logger },
    );
    try {
      for (const path of ['/console', '/portal', '/console/sign-in/x']) {
        const plain = await new ConsoleBrowser(production).get(path);
        expect([path, plain.status]).toEqual([path, 403]);
        expect(plain.html).toContain('HTTPS needed');
        expect(plain.html).toContain('<code>TRUST_PROXY</code>');
      }
      // The trusted proxy says the browser came over HTTPS: the sign-in page, as ever.
      const behindTls = await new ConsoleBrowser(production).request('/console', {
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(behindTls.status).toBe(200);
      expect(behindTls.html).toContain('npm run console -- link');
      const warned = logs.lines().filter((l) => String(l.msg).startsWith('PUBLIC_BASE_URL'));
      expect(warned).toMatchObject([{ level: 40, public_base_url: 'http://api.example' }]);
    } finally {
      await production.close();
    }
  });
});

describe('console usage', () => {
  it('when usage was counted, then the usage page totals by operation equal `npm run usage -- --by operation --json` over the same period, by hour and by day', async () => {
    const client = await createTestClient(gateway.db, { name: 'counted' });
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
    const browser = new ConsoleBrowser(gateway);
    await browser.signIn(env.redisPrefix);
    const page = await browser.get('/console/usage?granularity=hour&by=operation');
    expect(page.status).toBe(200);
    const { from, to, rows: shown } = usageTotalsShown(page.html);
    const expected = usageRowsPrinted(
      await operatorCliWith(
        env,
        {},
        'usage',
        '--by',
        'operation',
        '--from',
        from,
        '--to',
        to,
        '--json',
      ),
    );
    expect(expected.length).toBe(2);
    expect(shown.sort()).toEqual(expected.sort());
    // The last 30 days are whole days, read from usage_days: the same totals, here and in the CLI.
    const days = await browser.get('/console/usage?granularity=day&by=operation');
    const byDay = usageTotalsShown(days.html);
    expect(byDay.from).toMatch(/T00:00:00\.000Z$/);
    expect(byDay.rows.sort()).toEqual(expected);
    const printed = usageRowsPrinted(
      await operatorCliWith(
        env,
        {},
        'usage',
        '--by',
        'operation',
        '--from',
        byDay.from,
        '--to',
        byDay.to,
        '--json',
      ),
    );
    expect(printed.sort()).toEqual(expected);
    // The CLI may compile dist/ first.
  }, 120_000);
});

describe('operator audit', () => {
  it('when operators act from the CLI and the console, then `npm run audit -- --operator` lists who did what to which client, and from where', async () => {
    const cli = (tool: 'clients' | 'audit' | 'webhooks', ...args: string[]) =>
      operatorCliWith(env, {}, tool, ...args);
    const created = JSON.parse(
      await cli('clients', 'create', '--name', 'audited', '--scopes', 'members:read', '--json'),
    );
    const key = created.client_key as string;
    const subscription = await createWebhookService(gateway.db, env.config()).create(created.id, {
      url: 'https://partner.example.com/audited',
      types: ['members'],
      description: null,
    });
    await cli('clients', 'disable', key);
    await cli('clients', 'rotate-secret', key);
    await cli('webhooks', 'disable', String(subscription.id));
    const browser = new ConsoleBrowser(gateway);
    await browser.signIn(env.redisPrefix, 'Zeynep');
    await browser.get('/console/clients');
    const enabled = await browser.post(`/console/clients/${key}/enable`);
    expect(enabled.status).toBe(200);
    await browser.post(`/console/clients/${key}/revoke-tokens`);
    expect((await browser.post(`/console/clients/${key}/rotate-secret`)).status).toBe(200);
    await browser.post(`/console/clients/${key}/disable`);
    await browser.get('/console/webhooks');
    expect((await browser.post(`/console/webhooks/${subscription.id}/enable`)).status).toBe(200);
    await browser.post(`/console/webhooks/${subscription.id}/disable`);
    await cli('webhooks', 'enable', String(subscription.id));

    const listed = JSON.parse(await cli('audit', '--operator', '--client', key, '--json')) as {
      action: string;
      source: string;
      actor: string;
      client_key: string;
      address: string;
      at: string;
      target: string | null;
    }[];
    expect(listed.map((r) => [r.action, r.source, r.actor === 'Zeynep'])).toEqual([
      ['clients.create', 'cli', false],
      // The subscription made under the client's credentials, disabled as they end.
      ['webhooks.disable', 'gateway', false],
      ['clients.disable', 'cli', false],
      ['clients.rotate-secret', 'cli', false],
      ['webhooks.disable', 'cli', false],
      ['clients.enable', 'console', true],
      ['clients.revoke-tokens', 'console', true],
      ['clients.rotate-secret', 'console', true],
      ['clients.disable', 'console', true],
      ['webhooks.enable', 'console', true],
      ['webhooks.disable', 'console', true],
      ['webhooks.enable', 'cli', false],
    ]);
    // Which client, when and from where, on every record.
    for (const r of listed) {
      expect(r.client_key).toBe(key);
      expect(r.address).toMatch(r.source === 'console' ? /127\.0\.0\.1/ : /./);
      expect(Date.now() - new Date(r.at).getTime()).toBeLessThan(120_000);
    }
    expect(listed.filter((r) => r.action.startsWith('webhooks.')).map((r) => r.target)).toEqual([
      `subscription ${subscription.id}: credentials-ended`,
      ...Array(4).fill(`subscription ${subscription.id}`),
    ]);
    const text = await cli('audit', '--operator', '--client', key);
    expect(text).toMatch(/clients\.enable/);
    expect(text).toContain('Zeynep  console');
    const signIns = await gateway.db.operatorAudit.count({
      where: { action: 'console.sign-in', actor: 'Zeynep' },
    });
    expect(signIns).toBe(1);
  }, 60_000);

  it('when operator audit records pass AUDIT_RETENTION_DAYS, then the worker deletes them and keeps the younger ones', async () => {
    const at = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    await gateway.db.operatorAudit.createMany({
      data: [10, 600, 1, 0].map((m) => ({
        at: at(m),
        actor: `aged-${m}`,
        source: 'cli',
        action: 'clients.disable',
      })),
    });
    const config = env.config({ AUDIT_RETENTION_DAYS: String(5 / 1440) });
    const deleted = await purgeExpired(readModelPool(gateway.db), {
      tokensMs: config.tokens.retentionMs,
      auditMs: config.audit.retentionMs,
      webhookEventsMs: config.webhooks.retentionMs,
      usageMs: config.usage.retentionMs,
    });
    expect(deleted.operator_audit).toBeGreaterThanOrEqual(2);
    const left = await gateway.db.operatorAudit.findMany({
      where: { actor: { startsWith: 'aged-' } },
      orderBy: { actor: 'asc' },
    });
    expect(left.map((r) => r.actor)).toEqual(['aged-0', 'aged-1']);
  });
});
