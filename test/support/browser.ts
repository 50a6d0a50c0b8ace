// Pages in a real browser: headless Chromium from Debian's packages (never a downloaded one), its
// headless shell: the same Blink and V8 without the full browser's window and UI processes, which
// cost a browser test half its CPU (console-oidc: 94 core-seconds with the full browser, 47 with
// the shell), as Playwright's own headless default is.
// pages that record what must not happen (console errors, requests off the origin, dialogs),
// signing in to the console with a link, WCAG 2.1 AA checks with axe-core, and keyboard-only
// navigation. With PAGE_SCREENSHOTS=1 each checked page is also saved as a screenshot under the
// system's temp folder (printed by the run): a full-page PNG costs Chromium about as much CPU as
// loading the page, on a suite bound by two cores, so a run takes them only when someone looks.
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { createSignInLink } from '../../gateway/src/pages/sign-in-links.js';
import { testLinkKeys } from './environment.js';
import type { RunningGateway } from './gateway.js';

export const CHROMIUM = '/usr/bin/chromium-headless-shell';
export const hasChromium = existsSync(CHROMIUM);
export const missingChromium = ` (skipped: ${CHROMIUM} is not installed; apt-get install -y chromium-headless-shell)`;
export const SHOTS = process.env.PAGE_SCREENSHOTS ? join(tmpdir(), 'console-screenshots') : null;

export function launchChromium(): Promise<Browser> {
  if (SHOTS) {
    mkdirSync(SHOTS, { recursive: true });
    console.log(`page screenshots: ${SHOTS}`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * A page that records what must not happen: errors, requests off `origin`, dialogs. It reads the
 * pages in `lang` (the `lang` cookie of the frame's switch; English unless told), null: as a
 * browser that chose none, by its `locale` (Accept-Language).
 */
export async function watchedPage(
  browser: Browser,
  origin: string,
  options: { lang?: 'tr' | 'en' | null; locale?: string } = {},
) {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    locale: options.locale ?? 'en-GB',
  });
  const lang = options.lang === undefined ? 'en' : options.lang;
  if (lang) await context.addCookies([{ name: 'lang', value: lang, url: origin }]);
  const page = await context.newPage();
  page.setDefaultTimeout(8000);
  const problems: string[] = [];
  const foreign: string[] = [];
  const dialogs: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(origin)) foreign.push(request.url());
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return { page, problems, foreign, dialogs };
}

/** No WCAG 2.1 AA violation axe-core can find; with PAGE_SCREENSHOTS, a screenshot named `name`. */
export async function expectAccessible(page: Page, name: string) {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  const found = results.violations.map(
    (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  expect(found, name).toEqual([]);
}

/** Presses Tab until the element matching `selector` has the focus. */
export async function tabTo(page: Page, selector: string) {
  for (let i = 0; i < 80; i++) {
    const target = page.locator(selector).first();
    if (
      (await target.count()) > 0 &&
      (await target.evaluate((el: any) => el === el.ownerDocument.activeElement))
    )
      return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** Opens a fresh console sign-in link and presses its button. */
export async function signInWithLink(
  page: Page,
  gateway: RunningGateway,
  redisPrefix: string,
  name = 'Ayşe Operatör',
) {
  const token = await createSignInLink(gateway.redis, testLinkKeys(redisPrefix), { name }, 60_000);
  await page.goto(`${gateway.url}/console/sign-in/${token}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${gateway.url}/console/clients`);
}
