// /portal in a real browser (Debian's Chromium, as the console's test): a partner opens its
// portal link, adds an endpoint pointing at a receiver this test runs with the keyboard alone,
// sees the deliveries a replay since a time causes (status, duration, answer, filtered by
// outcome), rotates the signing secret (both verify during the overlap), sends a test event and
// sees its outcome, edits the endpoint's URL (the next test event goes there), downloads usage as
// CSV equal to GET /api/v1/usage, and rotates the client secret with an overlap (both secrets
// issue tokens until the partner ends it), with the keyboard alone.
// Every page meets WCAG 2.1 AA (axe-core), prints no console error under the CSP and asks nothing
// of another origin. Screenshots go where the console's do.
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  expectAccessible,
  hasChromium,
  launchChromium,
  missingChromium,
  tabTo,
  watchedPage,
} from '../support/browser.js';
import { PORTAL_PAGES } from '../../gateway/src/features/portal/portal.routes.js';
import { wordsIn } from '../../gateway/src/pages/language.js';
import { navigationOf } from '../../gateway/src/pages/navigation.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
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
import { portalLinkToken, usageCsvLines } from '../support/portal-session.js';
import { noteCredentials } from '../support/run-logs.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { startWebhookWorker } from '../support/worker.js';

if (!hasChromium) console.warn(`portal-browser.test.ts${missingChromium}`);

const WEBHOOK_SETTINGS = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2',
  WEBHOOK_DISPATCH_INTERVAL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
};
const REPLAYED = 3;
/** The navigation's pages the walk below opens and checks step by step. */
const WALKED = [
  '/portal/overview',
  '/portal/usage',
  '/portal/webhooks',
  '/portal/credentials',
  // A sandbox client's only (sandbox-quick-start-browser walks it).
  '/portal/quick-start',
];

let env: TestEnvironment | undefined;
let gateway: RunningGateway | undefined;
let browser: Browser | undefined;
let worker: Awaited<ReturnType<typeof startWebhookWorker>> | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
let client: TestClient;
const secrets = new Map<string, string>();

beforeAll(async () => {
  if (!hasChromium) return;
  env = await createTestEnvironment();
  gateway = await startGateway(env, WEBHOOK_SETTINGS);
  receiver = await startReceiver({ secrets });
  worker = await startWebhookWorker(env, WEBHOOK_SETTINGS);
  browser = await launchChromium();
  client = await createTestClient(gateway.db, {
    name: 'Turnike <Partner>',
    scopes: ['members:read', 'webhooks:manage'],
  });
});

afterAll(async () => {
  await browser?.close();
  await worker?.close();
  await receiver?.close();
  await gateway?.close();
  await env?.destroy();
});

describe('/portal in headless Chromium', () => {
  it.skipIf(!hasChromium)(
    `when a partner opens its link, adds an endpoint with the keyboard, replays events, sends test events around an edit, downloads usage and rotates its secret with an overlap, then deliveries and test outcomes show on the page, the CSV equals GET /api/v1/usage, both secrets issue tokens until the overlap is ended, and every page is accessible, offline and within the CSP${hasChromium ? '' : missingChromium}`,
    async () => {
      const origin = gateway!.url;
      const { page, problems, foreign, dialogs } = await watchedPage(browser!, origin);
      const token = await portalLinkToken(gateway!, env!.redisPrefix, client);
      await page.goto(`${origin}/portal/sign-in/${token}`);
      await expectAccessible(page, 'portal-sign-in-confirm');
      await tabTo(page, 'main button[type=submit]');
      await page.keyboard.press('Enter');
      await page.waitForURL(`${origin}/portal/overview`);
      expect(await page.locator('main').textContent()).toContain(client.client_key);
      await expectAccessible(page, 'portal-overview');

      // The add-endpoint flow, from the navigation on, with the keyboard alone.
      await tabTo(page, 'nav a[href="/portal/webhooks"]');
      await page.keyboard.press('Enter');
      await page.waitForURL(`${origin}/portal/webhooks`);
      await expectAccessible(page, 'portal-webhooks-empty');
      await tabTo(page, '#url');
      await page.keyboard.type(receiver!.url('/portal'));
      await tabTo(page, '#description');
      await page.keyboard.type('<b>Turnike</b> kapısı');
      await tabTo(page, 'input[value="members"]');
      await page.keyboard.press('Space');
      await tabTo(page, 'form.stack button[type=submit]');
      await page.keyboard.press('Enter');
      const notice = page.getByRole('status');
      await expect.poll(() => notice.textContent()).toContain('whsec_');
      const secret = (await notice.locator('code').textContent())!.trim();
      secrets.set('/portal', secret);
      const subscription = await gateway!.db.webhookSubscription.findFirstOrThrow({
        where: { client_id: client.id },
      });
      expect([subscription.url, subscription.types]).toEqual([
        receiver!.url('/portal'),
        ['members'],
      ]);
      expect(
        await page.getByRole('cell', { name: '<b>Turnike</b> kapısı', exact: true }).count(),
      ).toBe(1);
      await expectAccessible(page, 'portal-webhooks-created');
      await page.goto(`${origin}/portal/webhooks`);
      expect(await page.getByRole('status').count()).toBe(0);

      // Events it received an hour ago, sent again from the portal: a replay since a time.
      const recorded = new Date(Date.now() - 10 * 60_000);
      await gateway!.db.webhookEvent.createMany({
        data: Array.from({ length: REPLAYED }, (_, n) => ({
          subscription_id: subscription.id,
          event_type: 'members.upsert',
          body: JSON.stringify({ type: 'members.upsert', data: { n } }),
          changed_at: recorded,
          created_at: recorded,
          status: 'delivered',
          attempts: 1,
        })),
      });
      await page.getByRole('link', { name: `Subscription ${subscription.id}` }).click();
      await page.waitForURL(`${origin}/portal/webhooks/${subscription.id}`);
      await expectAccessible(page, 'portal-subscription');
      await page.getByRole('button', { name: 'Replay' }).click();
      await expect
        .poll(() => page.getByRole('status').textContent())
        .toContain(`${REPLAYED} events since`);
      await eventually(() => {
        expect(receiver!.received.filter((r) => r.path === '/portal' && r.verified).length).toBe(
          REPLAYED,
        );
      }, 10_000);
      await eventually(async () => {
        await page.reload();
        const outcomes = await page
          .locator('#deliveries tbody tr td:nth-child(4)')
          .allTextContents();
        expect(outcomes).toEqual(Array(REPLAYED).fill('delivered'));
      }, 10_000);
      const status = await page.locator('#deliveries tbody tr td:nth-child(5)').allTextContents();
      expect(status).toEqual(Array(REPLAYED).fill('204'));
      await page.getByLabel('Outcome').selectOption('timeout');
      await page.getByRole('button', { name: 'Filter' }).click();
      await expect.poll(() => page.locator('main').textContent()).toContain('No tries.');
      await page.getByLabel('Outcome').selectOption('delivered');
      await page.getByRole('button', { name: 'Filter' }).click();
      await expect.poll(() => page.locator('#deliveries tbody tr').count()).toBe(REPLAYED);
      await expectAccessible(page, 'portal-deliveries');

      await page.getByRole('button', { name: 'Rotate signing secret' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('whsec_');
      const rotated = (await page.getByRole('status').locator('code').textContent())!.trim();
      expect(rotated).not.toBe(secret);
      await expectAccessible(page, 'portal-signing-secret-rotated');
      // Replayed after the rotation: each delivery verifies under the old and the new secret.
      await page.getByRole('button', { name: 'Replay' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('events since');
      const resent = await eventually(() => {
        const arrived = receiver!.received.filter((r) => r.path === '/portal');
        expect(arrived.length).toBe(2 * REPLAYED);
        return arrived.slice(REPLAYED);
      }, 10_000);
      for (const delivery of resent)
        for (const key of [secret, rotated])
          expect(() =>
            new Webhook(key).verify(delivery.body, {
              'webhook-id': delivery.id,
              'webhook-timestamp': delivery.timestamp,
              'webhook-signature': delivery.signature,
            }),
          ).not.toThrow();

      // A test event: its outcome on the page, the endpoint's answer shown as text.
      receiver!.answerWith(() => ({ status: 200, body: '<b>ok</b>' }));
      const tests = (path: string) =>
        receiver!.received.filter((r) => r.path === path && r.parsed.type === 'webhook.test');
      await page.getByRole('button', { name: 'Send test event' }).click();
      await expect
        .poll(() => page.locator('#test-outcome').textContent(), { timeout: 5000 })
        .toContain('Test event delivered: status 200');
      expect(await page.locator('#test-response').textContent()).toBe('<b>ok</b>');
      expect(tests('/portal').map((r) => r.verified)).toEqual([true]);
      await expectAccessible(page, 'portal-test-event');

      // Edited with the keyboard: the next test event goes to the new URL.
      secrets.set('/portal-moved', rotated);
      await tabTo(page, '#url');
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type(receiver!.url('/portal-moved'));
      await tabTo(page, '#description');
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type('<i>moved</i>');
      await tabTo(page, 'form[action$="/edit"] button[type=submit]');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByRole('status').textContent()).toContain('saved');
      expect(await page.locator('#description').inputValue()).toBe('<i>moved</i>');
      await expectAccessible(page, 'portal-subscription-edited');
      await tabTo(page, 'form[action$="/test"] button[type=submit]');
      await page.keyboard.press('Enter');
      await expect
        .poll(() => page.locator('#test-outcome').textContent(), { timeout: 5000 })
        .toContain('status 200');
      expect(tests('/portal-moved').map((r) => r.verified)).toEqual([true]);
      expect(tests('/portal').length).toBe(1);

      // Usage: the chart beside its table, and the CSV equal to GET /api/v1/usage.
      const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000);
      await gateway!.db.usageHour.createMany({
        data: [
          ['GET /api/v1/members', 200, 40],
          ['GET /api/v1/members', 404, 3],
          ['GET /api/v1/branches', 429, 2],
        ].map(([operation, code, requests]) => ({
          hour,
          client_id: client.id,
          operation: String(operation),
          status: Number(code),
          requests: Number(requests),
          bytes_out: 1000,
        })),
      });
      await page.getByRole('link', { name: 'Usage', exact: true }).click();
      await page.waitForURL(`${origin}/portal/usage`);
      await expect.poll(() => page.locator('.chart canvas').count()).toBe(1);
      const row = page.locator(`#usage-series tr[data-t="${hour.getTime() / 1000}"] td[data-v]`);
      expect(await row.allTextContents()).toEqual(['45', '5', '0', '2']);
      await expectAccessible(page, 'portal-usage');
      const link = page.getByRole('link', { name: 'per period and operation' });
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      const csv = await readFile(await download.path(), 'utf8');
      const query = new URL((await link.getAttribute('href'))!, origin).search;
      const api = await getJson(
        `${origin}/api/v1/usage${query}`,
        bearer(await issueToken(gateway!, client)),
      );
      const [header, ...lines] = csv.trim().split('\n');
      expect(header!.split(',').slice(0, 3)).toEqual(['period_start', 'operation', 'requests']);
      expect(lines).toEqual(usageCsvLines(api.body.data.rows));
      expect(lines.length).toBe(2);

      await page.getByRole('link', { name: 'Credentials', exact: true }).click();
      await page.waitForURL(`${origin}/portal/credentials`);
      await expectAccessible(page, 'portal-credentials');

      // The client secret rotated with a 1-hour overlap, with the keyboard: both secrets issue
      // tokens until the partner ends the overlap; its session stays.
      const tokenStatus = async (secret: string) =>
        (
          await postJson(`${origin}/api/v1/auth/token`, {
            client_key: client.client_key,
            client_secret: secret,
          })
        ).status;
      await tabTo(page, 'input[name=overlap]:checked');
      await page.keyboard.press('ArrowDown');
      expect(await page.locator('input[value="1h"]').isChecked()).toBe(true);
      await tabTo(page, 'form[action$="/rotate-secret"] button[type=submit]');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByRole('status').textContent()).toContain('work until');
      const clientSecret = (await page.getByRole('status').locator('code').textContent())!.trim();
      noteCredentials(inject('services').runId, clientSecret);
      expect(clientSecret).not.toBe(client.client_secret);
      expect([await tokenStatus(client.client_secret), await tokenStatus(clientSecret)]).toEqual([
        200, 200,
      ]);
      await expectAccessible(page, 'portal-client-secret-overlap');
      await tabTo(page, 'form[action$="/end-previous-secret"] button[type=submit]');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByRole('status').textContent()).toContain('have ended');
      expect([await tokenStatus(client.client_secret), await tokenStatus(clientSecret)]).toEqual([
        401, 200,
      ]);
      expect(await page.getByRole('button', { name: 'End previous secret now' }).count()).toBe(0);
      await expectAccessible(page, 'portal-client-secret-overlap-ended');
      await page.getByRole('link', { name: 'Overview', exact: true }).click();
      await page.waitForURL(`${origin}/portal/overview`);
      await expect
        .poll(() => page.locator('#webhook-health tbody td').nth(2).textContent())
        .toBe(String(REPLAYED));
      await expectAccessible(page, 'portal-overview-with-webhooks');
      // Every other page of the navigation (a page added to it is checked without a step here).
      for (const { link } of navigationOf(PORTAL_PAGES)) {
        if (WALKED.includes(link.href)) continue;
        await page.getByRole('link', { name: link.label(wordsIn('en')), exact: true }).click();
        await page.waitForURL(`${origin}${link.href}`);
        await expectAccessible(page, link.href.slice(1).replaceAll('/', '-'));
      }
      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      expect(dialogs).toEqual([]);

      // Another client's subscription or none: a page, whose 404 is the browser's only complaint.
      expect((await page.goto(`${origin}/portal/webhooks/999999`))!.status()).toBe(404);
      await expectAccessible(page, 'portal-not-found');
      expect(problems).toEqual([expect.stringContaining('404')]);
      await page.context().close();
    },
    120_000,
  );
});
