// /console in a real browser: headless Chromium from Debian's packages signs in with a link,
// creates a client with the keyboard alone, and every page meets WCAG 2.1 AA (axe-core), prints no
// console error under the CSP, asks nothing of another origin, and shows partner text as text.
// Screenshots of each page are saved under the system's temp folder (printed by the run).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink } from '../gateway/src/pages/sign-in-links.js';
import {
  expectAccessible,
  hasChromium,
  launchChromium,
  missingChromium as missing,
  tabTo,
  watchedPage as watchedPageOf,
} from './support/browser.js';
import { createTestEnvironment, type TestEnvironment } from './support/environment.js';
import { startGateway, type RunningGateway } from './support/gateway.js';

if (!hasChromium) console.warn(`console-browser.test.ts${missing}`);

let env: TestEnvironment | undefined;
let gateway: RunningGateway | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!hasChromium) return;
  env = await createTestEnvironment();
  gateway = await startGateway(env);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await env?.destroy();
});

const watchedPage = () => watchedPageOf(browser!, gateway!.url);

async function signIn(page: Page, name = 'Ayşe Operatör') {
  const token = await createSignInLink(gateway!.redis, env!.redisPrefix, { name }, 60_000);
  await page.goto(`${gateway!.url}/console/sign-in/${token}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${gateway!.url}/console/clients`);
}

describe('/console in headless Chromium', () => {
  it.skipIf(!hasChromium)(
    `when an operator signs in and creates a client with the keyboard only, then its secret is shown once, and each page is accessible, offline and within the CSP${hasChromium ? '' : missing}`,
    async () => {
      const { page, problems, foreign, dialogs } = await watchedPage();
      const token = await createSignInLink(
        gateway!.redis,
        env!.redisPrefix,
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

      // Shown once: the page opened again holds no secret.
      await page.goto(`${gateway!.url}/console/clients`);
      expect(await page.getByRole('status').count()).toBe(0);

      await page.getByRole('button', { name: 'Disable: Keyboard partner' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('disabled');
      expect(
        (await gateway!.db.apiClient.findUniqueOrThrow({ where: { id: created.id } })).is_active,
      ).toBe(false);
      await expectAccessible(page, 'clients-disabled');

      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      expect(dialogs).toEqual([]);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    'when a client is named <img src=x onerror=alert(1)>, then the page shows the name as text and opens no dialog',
    async () => {
      const { page, problems, dialogs } = await watchedPage();
      await signIn(page);
      const name = '<img src=x onerror=alert(1)>';
      await page.getByLabel('Name', { exact: true }).fill(name);
      await page.getByLabel('members:list').check();
      await page.getByRole('button', { name: 'Create client' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('client_secret');
      await expect.poll(() => page.getByRole('cell', { name, exact: true }).count()).toBe(1);
      expect(await page.locator('main img').count()).toBe(0);
      expect(dialogs).toEqual([]);
      expect(problems).toEqual([]);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    'when the operator visits the webhooks, usage, sync health and audit pages, then each is accessible, offline and within the CSP, and the usage chart is drawn beside its table',
    async () => {
      const { page, problems, foreign } = await watchedPage();
      await signIn(page);
      const client = await gateway!.db.apiClient.findFirstOrThrow({ orderBy: { id: 'asc' } });
      const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000);
      await gateway!.db.usageHour.createMany({
        data: [200, 404].map((status) => ({
          hour,
          client_id: client.id,
          operation: 'GET /api/v1/members',
          status,
          requests: status === 200 ? 40 : 3,
          bytes_out: 1000,
        })),
      });
      for (const [label, path] of [
        ['Webhooks', 'webhooks'],
        ['Usage', 'usage'],
        ['Sync health', 'sync'],
        ['Audit', 'audit'],
      ] as const) {
        await page.getByRole('link', { name: label, exact: true }).click();
        await page.waitForURL(`${gateway!.url}/console/${path}`);
        if (path === 'usage') {
          await expect.poll(() => page.locator('.chart canvas').count()).toBe(1);
          const row = page.locator(
            `#usage-series tr[data-t="${hour.getTime() / 1000}"] td[data-v]`,
          );
          expect(await row.allTextContents()).toEqual(['43', '3', '0', '0']);
          expect(await page.locator('#usage-series tbody tr').count()).toBe(24);
        }
        await expectAccessible(page, path);
      }
      expect(await page.getByRole('cell', { name: 'console.sign-in' }).count()).toBeGreaterThan(0);
      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    'when a form is refused (an unknown scope, a malformed limit), then the page says why and keeps the operator on it',
    async () => {
      const { page } = await watchedPage();
      await signIn(page);
      await page.getByLabel('Name', { exact: true }).fill('limits wrong');
      await page.getByLabel('members:list').check();
      await page.getByLabel(/^Limits/).fill('10/abc');
      await page.getByRole('button', { name: 'Create client' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('limits must be');
      await expectAccessible(page, 'clients-refused');
      await page.context().close();
    },
  );
});
