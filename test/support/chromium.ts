// Headless Chromium from Debian's packages (never a downloaded browser) for the console's browser
// tests: how it is launched, a page that records what must not happen (console errors, requests
// off the origin, dialogs), signing in with a link, and the accessibility check that saves each
// page's screenshot under the system's temp folder.
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { createSignInLink } from '../../gateway/src/pages/sign-in-links.js';
import type { RunningGateway } from './gateway.js';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
export const missingChromium = ` (skipped: ${CHROMIUM} is not installed; apt-get install -y chromium)`;

export function launchChromium(): Promise<Browser> {
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

/** A page that records what must not happen: errors, requests off `origin`, dialogs. */
export async function watchedPage(browser: Browser, origin: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
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

/** Opens a fresh sign-in link and presses its button. */
export async function signInWithLink(
  page: Page,
  gateway: RunningGateway,
  redisPrefix: string,
  name = 'Ayşe Operatör',
) {
  const token = await createSignInLink(gateway.redis, redisPrefix, { name }, 60_000);
  await page.goto(`${gateway.url}/console/sign-in/${token}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${gateway.url}/console/clients`);
}

/** Where each checked page's screenshot goes (printed once by the run). */
const SHOTS = join(tmpdir(), 'console-screenshots');
let announced = false;

/** WCAG 2.1 AA by axe-core, 0 violations; then the page's screenshot as `name`.png. */
export async function expectAccessible(page: Page, name: string) {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  const found = results.violations.map(
    (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
  expect(found, name).toEqual([]);
  mkdirSync(SHOTS, { recursive: true });
  if (!announced) console.log(`console screenshots: ${SHOTS}`);
  announced = true;
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}
