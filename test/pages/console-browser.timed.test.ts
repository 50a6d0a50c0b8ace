// /console in a real browser: headless Chromium from Debian's packages signs in with a link,
// creates a client with the keyboard alone, and every page it opens meets WCAG 2.1 AA (axe-core),
// prints no console error under the CSP and asks nothing of another origin; disabling the client
// ends its tokens on two gateways within 1 s, which is why this file runs in the timed group. The
// other pages, partner text and refused forms: console-browser-pages.test.ts.
// Screenshots of each page are saved under the system's temp folder (printed by the run).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink } from '../../gateway/src/pages/sign-in-links.js';
import {
  expectAccessible,
  hasChromium,
  launchChromium,
  missingChromium as missing,
  tabTo,
  watchedPage as watchedPageOf,
} from '../support/browser.js';
import {
  createTestEnvironment,
  testLinkKeys,
  type TestEnvironment,
} from '../support/environment.js';
import {
  bearer,
  getJson,
  issueTokenPair,
  postJson,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { eventually } from '../support/eventually.js';

if (!hasChromium) console.warn(`console-browser.test.ts${missing}`);

let env: TestEnvironment | undefined;
let gateway: RunningGateway | undefined;
/** A second gateway on the same databases and Redis, as a deployment runs several. */
let other: RunningGateway | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!hasChromium) return;
  env = await createTestEnvironment();
  gateway = await startGateway(env);
  other = await startGateway(env);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await other?.close();
  await gateway?.close();
  await env?.destroy();
});

const watchedPage = () => watchedPageOf(browser!, gateway!.url);

describe('/console in headless Chromium', () => {
  it.skipIf(!hasChromium)(
    `when an operator signs in and creates a client with the keyboard only, then its secret is shown once, and each page is accessible, offline and within the CSP${hasChromium ? '' : missing}`,
    async () => {
      const { page, problems, foreign, dialogs } = await watchedPage();
      const token = await createSignInLink(
        gateway!.redis,
        testLinkKeys(env!.redisPrefix),
        { name: 'Ayşe' },
        60_000,
      );
      await page.goto(`${gateway!.url}/console/sign-in/${token}`);
      await expectAccessible(page, 'sign-in-confirm');
      await tabTo(page, 'main button[type=submit]');
      await page.keyboard.press('Enter');
      await page.waitForURL(`${gateway!.url}/console/clients`);
      await expectAccessible(page, 'clients-empty');

      await tabTo(page, '#name');
      await page.keyboard.type('Keyboard partner');
      await tabTo(page, 'input[value="members:read"]');
      await page.keyboard.press('Space');
      await tabTo(page, 'input[value="webhooks:manage"]');
      await page.keyboard.press('Space');
      await tabTo(page, '#limits');
      await page.keyboard.type('30/500/5000');
      await tabTo(page, 'form.stack button[type=submit]');
      await page.keyboard.press('Enter');
      const notice = page.getByRole('status');
      await expect.poll(() => notice.textContent()).toContain('client_secret');
      const created = await gateway!.db.apiClient.findFirstOrThrow({
        where: { name: 'Keyboard partner' },
      });
      expect(created.scopes).toEqual(['members:read', 'webhooks:manage']);
      expect(created.rate_limit_minute).toBe(30);
      expect(await notice.textContent()).toContain(created.client_key);
      await expectAccessible(page, 'clients-created');

      const secret = (await page.locator('dl.secret dd code').nth(1).textContent())!;
      const partner = { ...created, client_secret: secret };
      const { access_token } = await issueTokenPair(gateway!, partner);
      const statuses = async () =>
        Promise.all(
          [gateway!, other!].map(
            async (g) => (await getJson(`${g.url}/api/v1/webhooks`, bearer(access_token))).status,
          ),
        );
      expect(await statuses()).toEqual([200, 200]);

      // Shown once: the page opened again holds no secret.
      await page.goto(`${gateway!.url}/console/clients`);
      expect(await page.getByRole('status').count()).toBe(0);

      const clicked = Date.now();
      await page.getByRole('button', { name: 'Disable: Keyboard partner' }).click();
      await eventually(async () => expect(await statuses()).toEqual([401, 401]), 3000, 20);
      expect(Date.now() - clicked).toBeLessThan(1000);
      await expect.poll(() => page.getByRole('status').textContent()).toContain('disabled');
      expect(
        (await gateway!.db.apiClient.findUniqueOrThrow({ where: { id: created.id } })).is_active,
      ).toBe(false);
      await expectAccessible(page, 'clients-disabled');

      await page.getByRole('button', { name: 'Rotate secret: Keyboard partner' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('New secret');
      const rotated = (await page.locator('dl.secret dd code').nth(1).textContent())!;
      expect(rotated).not.toBe(secret);
      await expectAccessible(page, 'clients-rotated');
      await page.getByRole('button', { name: 'Enable: Keyboard partner' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('enabled');
      const tokenWith = (clientSecret: string) =>
        postJson(`${gateway!.url}/api/v1/auth/token`, {
          client_key: created.client_key,
          client_secret: clientSecret,
        });
      expect((await tokenWith(secret)).status).toBe(401);
      expect((await tokenWith(rotated)).status).toBe(200);

      await page.getByRole('link', { name: 'Edit: Keyboard partner' }).click();
      await page.waitForURL(`${gateway!.url}/console/clients/${created.client_key}/edit`);
      await expectAccessible(page, 'client-edit');

      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      expect(dialogs).toEqual([]);
      await page.context().close();
    },
  );
});
