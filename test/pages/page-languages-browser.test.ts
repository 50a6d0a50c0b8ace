// The pages' languages in a real browser (docs/decisions/0025-page-languages.md): an operator who
// chose nothing reads the console in Turkish, accessible (axe-core checks `lang` among the rest);
// the frame's switch turns it to English and the choice stays as the operator moves on.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientsWords } from '../../gateway/src/features/console/clients.page.js';
import { createSignInLink } from '../../gateway/src/pages/sign-in-links.js';
import { tr } from '../../gateway/src/pages/messages/tr.js';
import {
  expectAccessible,
  hasChromium,
  launchChromium,
  missingChromium as missing,
  watchedPage,
} from '../support/browser.js';
import {
  createTestEnvironment,
  testLinkKeys,
  type TestEnvironment,
} from '../support/environment.js';
import { startGateway, type RunningGateway } from '../support/gateway.js';

if (!hasChromium) console.warn(`page-languages-browser.test.ts${missing}`);

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

describe('the pages’ languages in headless Chromium', () => {
  it.skipIf(!hasChromium)(
    'when an operator chose no language, then the console is Turkish and accessible; the switch turns it to English, which stays',
    async () => {
      const origin = gateway!.url;
      const { page, problems } = await watchedPage(browser!, origin, {
        lang: null,
        locale: 'en-GB',
      });
      const token = await createSignInLink(
        gateway!.redis,
        testLinkKeys(env!.redisPrefix),
        { name: 'Ayşe Operatör' },
        60_000,
      );
      await page.goto(`${origin}/console/sign-in/${token}`);
      // Signed out, the console follows the browser: English here.
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      await page.locator('main button[type=submit]').click();
      await page.waitForURL(`${origin}/console/clients`);
      expect(await page.locator('html').getAttribute('lang')).toBe('tr');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
        clientsWords({ locale: 'tr' }).title,
      );
      await expectAccessible(page, 'console-clients-tr');
      await page.getByRole('link', { name: tr.nav.usage, exact: true }).click();
      await page.waitForURL(`${origin}/console/usage`);
      await expectAccessible(page, 'console-usage-tr');

      await page
        .getByRole('navigation', { name: tr.frame.language })
        .getByRole('link', { name: 'English' })
        .click();
      await page.waitForURL(`${origin}/console/usage`);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Usage');
      await page.getByRole('link', { name: 'Sync health', exact: true }).click();
      await page.waitForURL(`${origin}/console/sync`);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      await expectAccessible(page, 'console-sync-en');
      const [cookie] = (await page.context().cookies()).filter((c) => c.name === 'lang');
      expect(cookie).toMatchObject({ value: 'en', sameSite: 'Lax', httpOnly: true });
      expect(problems).toEqual([]);
    },
  );
});
