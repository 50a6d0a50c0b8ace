// A sandbox client's portal opens on its quick start (decision 0024), and the quick start works
// when followed step by step in headless Chromium: its curl lines, run by a shell with the
// client's secret, give a token and a first page of the generated club's members; a webhook
// subscribed on the page to a receiver this test runs gets the change the page then makes, signed
// with the secret the page showed and its verification snippet holds; the page lists the
// delivery. Every step's page meets WCAG 2.1 AA (axe-core); screenshots as the console's.
// A live client's portal has no quick start.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectAccessible,
  hasChromium,
  launchChromium,
  missingChromium,
  watchedPage,
} from '../support/browser.js';
import { createTestClient } from '../support/gateway.js';
import { portalLinkToken } from '../support/portal-session.js';
import { freePort } from '../support/spare-processes.js';
import { startSandboxFixture, type SandboxFixture } from '../support/sandbox.js';

const shell = promisify(execFile);

let fixture: SandboxFixture | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!hasChromium) return;
  // The quick start's curl lines are made under PUBLIC_BASE_URL, as the portal's links are.
  const port = await freePort();
  fixture = await startSandboxFixture(undefined, {
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await fixture?.close();
});

describe('the sandbox quick start in headless Chromium', () => {
  it.skipIf(!hasChromium)(
    `when a sandbox partner opens its portal, then the quick start's curl lines, webhook, change and delivery all work as written${hasChromium ? '' : missingChromium}`,
    async () => {
      const { gateway, env, sandbox, receiver, secrets } = fixture!;
      const origin = gateway.url;
      const { page, problems } = await watchedPage(browser!, origin);
      const link = await portalLinkToken(gateway, env.redisPrefix, sandbox.client);
      await page.goto(`${origin}/portal/sign-in/${link}`);
      await page.locator('main button[type=submit]').click();
      await page.waitForURL(`${origin}/portal/quick-start`);
      await expectAccessible(page, 'portal-quick-start');

      // Steps 1 and 2: the page's own lines, run by a shell as a developer would paste them.
      const tokenLine = (await page.locator('#step-token').textContent())!;
      const readLine = (await page.locator('#step-read').textContent())!;
      expect(tokenLine).toContain(sandbox.key);
      const { stdout } = await shell('bash', ['-c', `${tokenLine}\n${readLine}`], {
        env: { ...process.env, CLIENT_SECRET: sandbox.client.client_secret },
      });
      const firstRead = JSON.parse(stdout) as { data: { id: number }[] };
      expect(firstRead.data).toHaveLength(5);

      // Step 3: a subscription to the URL typed.
      await page.locator('#url').fill(receiver.url('/quick-start'));
      await page.getByRole('button', { name: /subscribe/i }).click();
      const notice = page.getByRole('status');
      await expect.poll(() => notice.textContent()).toContain('whsec_');
      const secret = (await notice.locator('code').textContent())!.trim();
      secrets.set('/quick-start', secret);
      expect(await page.locator('#verify-snippet').textContent()).toContain(`'${secret}'`);
      await expectAccessible(page, 'portal-quick-start-subscribed');

      // Step 4: a change, which reaches the receiver signed with that secret.
      await page.locator('#type').selectOption('members');
      await page.getByRole('button', { name: 'Make a change' }).click();
      await expect
        .poll(() => page.getByRole('status').textContent())
        .toMatch(/members \d+ created/);
      const id = Number(
        /members (\d+) created/.exec((await page.getByRole('status').textContent())!)![1],
      );
      await expect
        .poll(() => receiver.received.filter((r) => r.path === '/quick-start').length, {
          timeout: 10_000,
        })
        .toBeGreaterThan(0);
      const delivery = receiver.received.find(
        (r) => r.path === '/quick-start' && (r.parsed.data as { id: number }).id === id,
      )!;
      expect(delivery.verified).toBe(true);
      const verified = new Webhook(secret).verify(delivery.body, {
        'webhook-id': delivery.id,
        'webhook-timestamp': delivery.timestamp,
        'webhook-signature': delivery.signature,
      }) as { type: string };
      expect(verified.type).toBe('members.upsert');

      // Step 5: the page lists the delivery.
      await expect
        .poll(
          async () => {
            await page.goto(`${origin}/portal/quick-start`);
            return page
              .locator('#deliveries')
              .textContent()
              .catch(() => '');
          },
          { timeout: 10_000 },
        )
        .toContain('members.upsert');
      await expectAccessible(page, 'portal-quick-start-delivered');
      expect(problems).toEqual([]);

      // A live client's portal has none.
      const live = await createTestClient(gateway.db, { scopes: ['members:read'] });
      const liveLink = await portalLinkToken(gateway, env.redisPrefix, live);
      const livePage = await browser!.newPage();
      await livePage.goto(`${origin}/portal/sign-in/${liveLink}`);
      await livePage.locator('main button[type=submit]').click();
      await livePage.waitForURL(`${origin}/portal/overview`);
      expect(await livePage.getByRole('navigation', { name: 'Main' }).textContent()).not.toContain(
        'Quick start',
      );
      const missing = await livePage.goto(`${origin}/portal/quick-start`);
      expect(missing?.status()).toBe(404);
      await livePage.close();
    },
    90_000,
  );
});
