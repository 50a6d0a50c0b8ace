// Signing in to the console through a real OpenID Connect provider (oidc-provider, started here on
// a private port), in headless Chromium: an allowed address gets in, another is refused, and an
// answer whose state or code was edited is refused, as is the same answer used twice.
import { createHash } from 'node:crypto';
import { get as httpGet, type IncomingMessage } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectAccessible,
  hasChromium,
  launchChromium,
  missingChromium,
} from '../support/browser.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { startGateway, type RunningGateway } from '../support/gateway.js';
import { captureLogs } from '../support/log-capture.js';
import { startOidcProvider, type RunningOidcProvider } from '../support/oidc-provider.js';
import { freePort } from '../support/spare-processes.js';

let env: TestEnvironment | undefined;
let provider: RunningOidcProvider | undefined;
let gateway: RunningGateway | undefined;
let browser: Browser | undefined;
const logs = captureLogs();

/** Requests one address may make to /console/oidc/* in a minute, in this file's gateway. */
const PER_MINUTE = 40;

beforeAll(async () => {
  if (!hasChromium) return;
  env = await createTestEnvironment();
  provider = await startOidcProvider();
  // The redirect URI is made from PUBLIC_BASE_URL: the gateway listens where it says.
  const port = await freePort();
  gateway = await startGateway(
    env,
    {
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      CONSOLE_OIDC_ISSUER: provider.issuer,
      CONSOLE_OIDC_CLIENT_ID: provider.clientId,
      CONSOLE_OIDC_CLIENT_SECRET: provider.clientSecret,
      CONSOLE_OIDC_ALLOWED: 'ops@club.example, @branch.example',
      CONSOLE_OIDC_ALLOWED_SUBS: 'listed-without-claim',
      CONSOLE_SIGN_IN_PER_MINUTE: String(PER_MINUTE),
      // X-Forwarded-For from this host names the address: the limit's tests come from others.
      TRUST_PROXY: 'loopback',
    },
    { logger: logs.logger },
  );
  provider.register(`${gateway.url}/console/oidc/callback`);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await provider?.close();
  await env?.destroy();
});

async function newPage() {
  const context = await browser!.newContext({ locale: 'en-GB' });
  // The console's pages in English, as chosen with the frame's switch (it is Turkish otherwise).
  await context.addCookies([{ name: 'lang', value: 'en', url: gateway!.url }]);
  const page = await context.newPage();
  page.setDefaultTimeout(8000);
  // The provider's development pages ask for a web font; this host has no route out.
  await page.route(/^https:\/\//, (route) => route.abort());
  return page;
}

/** Whether the sign-in page has been checked with axe: it is the same page for every test. */
let signInChecked = false;

/** Starts from the console's sign-in page and signs in at the provider as `email`. */
async function atProvider(page: Page, email: string) {
  await page.goto(`${gateway!.url}/console`);
  if (!signInChecked) await expectAccessible(page, 'sign-in-oidc');
  signInChecked = true;
  await page.getByRole('link', { name: "Sign in with your organisation's account" }).click();
  await page.waitForURL(`${provider!.issuer}/**`);
  await page.locator('input[name=login]').fill(email);
  await page.locator('input[name=password]').fill('any');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** The provider's answer (its redirect to the console), held back from the console. */
async function heldAnswer(page: Page, email: string): Promise<URL> {
  // The answer is the last hop of the provider's redirects, which the page's routes never see;
  // the browser's own interception does.
  const cdp = await page.context().newCDPSession(page);
  let held: string | undefined;
  cdp.on('Fetch.requestPaused', (paused) => {
    held = paused.request.url;
    void cdp.send('Fetch.failRequest', { requestId: paused.requestId, errorReason: 'Aborted' });
  });
  await cdp.send('Fetch.enable', {
    patterns: [{ urlPattern: `${gateway!.url}/console/oidc/callback?*` }],
  });
  // The held-back navigation fails the last click's wait.
  await atProvider(page, email).catch(() => undefined);
  await expect.poll(() => held, { timeout: 8000 }).toBeDefined();
  await cdp.send('Fetch.disable');
  return new URL(held!);
}

const signInRecords = (actor: string) =>
  gateway!.db.operatorAudit.findMany({ where: { actor, action: 'console.sign-in' } });

describe.skipIf(!hasChromium)(
  `console sign-in through OpenID Connect${hasChromium ? '' : missingChromium}`,
  () => {
    it('when an allowed address signs in at the provider, then it reaches the console, and the audit records it', async () => {
      const page = await newPage();
      await atProvider(page, 'ops@club.example');
      await page.waitForURL(`${gateway!.url}/console/oidc/callback?**`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Signed in');
      await expectAccessible(page, 'oidc-signed-in');
      await page.getByRole('link', { name: 'Open the console' }).click();
      await page.waitForURL(`${gateway!.url}/console/clients`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Clients');
      expect(await page.locator('form.sign-out span').textContent()).toBe('ops@club.example');
      const [record] = await signInRecords('ops@club.example');
      expect(record).toMatchObject({ source: 'console', target: 'oidc' });
      expect(record!.address).toMatch(/127\.0\.0\.1/);

      // A whole domain may be allowed.
      const other = await newPage();
      await atProvider(other, 'manager@branch.example');
      await other.getByRole('link', { name: 'Open the console' }).click();
      await other.waitForURL(`${gateway!.url}/console/clients`);
      await page.context().close();
      await other.context().close();
    });

    it('when an address that is not allowed signs in at the provider, then the console refuses it and opens no session', async () => {
      const page = await newPage();
      await atProvider(page, 'someone@elsewhere.example');
      await page.waitForURL(`${gateway!.url}/console/oidc/callback?**`);
      expect(await page.getByRole('alert').textContent()).toContain(
        'someone@elsewhere.example may not sign in to this console',
      );
      await expectAccessible(page, 'oidc-refused');
      const answer = await page.goto(`${gateway!.url}/console/clients`);
      expect(answer!.status()).toBe(401);
      expect(await signInRecords('someone@elsewhere.example')).toEqual([]);
      expect(
        await gateway!.db.operatorAudit.count({ where: { action: 'console.sign-in-refused' } }),
      ).toBeGreaterThan(0);
      await page.context().close();
    });

    for (const edited of ['state', 'code'] as const)
      it(`when the provider's answer comes back with its ${edited} edited, then it is refused, and the flow cannot be finished after`, async () => {
        const page = await newPage();
        const answer = await heldAnswer(page, 'ops@club.example');
        const tampered = new URL(answer);
        tampered.searchParams.set(edited, `${answer.searchParams.get(edited)!}x`);
        const refused = await page.goto(tampered.href);
        expect(refused!.status()).toBe(403);
        expect(await page.getByRole('alert').textContent()).toContain('Refused');
        expect((await page.goto(`${gateway!.url}/console/clients`))!.status()).toBe(401);
        // The untouched answer no longer opens a session either: the flow was spent.
        expect((await page.goto(answer.href))!.status()).toBe(403);
        expect((await page.goto(`${gateway!.url}/console/clients`))!.status()).toBe(401);
        await page.context().close();
      });

    it('when an answer is opened in another browser than the one that began the flow, then it is refused', async () => {
      const page = await newPage();
      const answer = await heldAnswer(page, 'ops@club.example');
      const stranger = await newPage();
      expect((await stranger.goto(answer.href))!.status()).toBe(403);
      expect(await stranger.getByRole('alert').textContent()).toContain('was not begun here');
      await page.context().close();
      await stranger.context().close();
    });

    for (const [login, signsIn] of [
      ['verified-as-text', true],
      ['listed-without-claim', true],
      ['unverified-as-text', false],
      ['no-verified-claim', false],
    ] as const)
      it(`when the provider says ${login} of an allowed address, then it ${signsIn ? 'signs in' : 'is refused as unverified'}`, async () => {
        const page = await newPage();
        await atProvider(page, login);
        await page.waitForURL(`${gateway!.url}/console/oidc/callback?**`);
        const heading = await page.getByRole('heading', { level: 1 }).textContent();
        if (signsIn) {
          expect(heading).toBe('Signed in');
          expect(await page.locator('main strong').textContent()).toBe('ops@club.example');
        } else {
          expect(heading).toBe('Sign-in refused');
          expect(await page.getByRole('alert').textContent()).toContain(
            'the provider has not verified ops@club.example',
          );
          expect((await page.goto(`${gateway!.url}/console/clients`))!.status()).toBe(401);
        }
        await page.context().close();
      });

    it('when the start is asked under another Host, then the provider is told to answer at PUBLIC_BASE_URL', async () => {
      const answer = await rawGet(`${gateway!.url}/console/oidc/start`, {
        host: 'evil.example',
        'x-forwarded-host': 'evil.example',
        'x-forwarded-for': '203.0.113.5',
      });
      expect(answer.statusCode).toBe(303);
      const location = new URL(answer.headers.location!);
      expect(location.searchParams.get('redirect_uri')).toBe(
        `${gateway!.url}/console/oidc/callback`,
      );
    });

    it('when answers without a flow keep coming, then none is audited, they are logged once a minute, and one address past CONSOLE_SIGN_IN_PER_MINUTE gets 429', async () => {
      const audited = await gateway!.db.operatorAudit.count();
      const logged = () =>
        logs.lines().filter((l) => l.msg === 'console sign-in answer without a flow refused');
      const loggedBefore = logged().length;
      const statuses: number[] = [];
      for (let i = 0; i <= PER_MINUTE; i++) {
        const answer = await rawGet(`${gateway!.url}/console/oidc/callback?code=c&state=s${i}`, {
          'x-forwarded-for': '203.0.113.7',
        });
        statuses.push(answer.statusCode!);
      }
      expect(statuses.slice(0, PER_MINUTE)).toEqual(Array<number>(PER_MINUTE).fill(403));
      expect(statuses.at(-1)).toBe(429);
      expect(await gateway!.db.operatorAudit.count()).toBe(audited);
      expect(logged().length - loggedBefore).toBeLessThanOrEqual(1);
      expect(logged().length).toBeGreaterThanOrEqual(1);
      // Another address is not held back by this one.
      const other = await rawGet(`${gateway!.url}/console/oidc/callback?code=c&state=s`, {
        'x-forwarded-for': '203.0.113.8',
      });
      expect(other.statusCode).toBe(403);
    });

    it('when one address asks to start again and again, then past the limit no flow is stored, and every stored one expires', async () => {
      const flows = async () => {
        const keys = await gateway!.redis.keys(`${env!.redisPrefix}:pages:oidc:*`);
        return { keys, ttls: await Promise.all(keys.map((key) => gateway!.redis.pttl(key))) };
      };
      const before = (await flows()).keys.length;
      const statuses: number[] = [];
      for (let i = 0; i < PER_MINUTE + 5; i++)
        statuses.push(
          (await rawGet(`${gateway!.url}/console/oidc/start`, { 'x-forwarded-for': '203.0.113.9' }))
            .statusCode!,
        );
      expect(statuses.filter((status) => status === 303)).toHaveLength(PER_MINUTE);
      // Stored under the binding's hash keyed by SECRETS_KEY, not its plain SHA-256.
      const started = await rawGet(`${gateway!.url}/console/oidc/start`, {
        'x-forwarded-for': '203.0.113.10',
      });
      const binding = /console-oidc=([^;]+)/.exec(String(started.headers['set-cookie']))![1]!;
      const unkeyed = createHash('sha256').update(binding).digest('base64url');
      expect(await gateway!.redis.exists(`${env!.redisPrefix}:pages:oidc:${unkeyed}`)).toBe(0);
      expect(statuses.slice(PER_MINUTE)).toEqual(Array<number>(5).fill(429));
      const after = await flows();
      expect(after.keys.length - before).toBe(PER_MINUTE + 1);
      for (const ttl of after.ttls) expect(ttl).toBeGreaterThan(0);
    });
  },
);

/** A GET with headers fetch will not send (Host), answered without following redirects. */
function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const request = httpGet(url, { headers }, (answer) => {
      answer.resume();
      answer.on('end', () => resolve(answer));
    });
    request.on('error', reject);
  });
}
