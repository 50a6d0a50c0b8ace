// /console in a real browser, its pages beyond the clients' (console-browser.test.ts, in the timed
// group for its 1 s bound, signs in with the keyboard and creates a client): headless Chromium
// from Debian's packages finds the webhooks, usage, sync health and audit pages accessible (WCAG
// 2.1 AA, axe-core), offline and within the CSP, shows partner text as text, and keeps the
// operator on a refused form saying why. No assertion here times anything, so it runs beside
// other files. With PAGE_SCREENSHOTS=1, a screenshot of each page (test/support/browser.ts).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectAccessible,
  hasChromium,
  launchChromium,
  missingChromium as missing,
  signInWithLink,
  watchedPage as watchedPageOf,
} from '../support/browser.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { createTestClient, startGateway, type RunningGateway } from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { syncOnce } from '../support/sync-once.js';
import { recordRecipients } from '#api/recipients.js';
import { readModelPool } from '#common/databases.js';
import { usageRowsPrinted, usageTotalsShown } from '../support/console-session.js';
import { operatorCliWith } from '../support/operator-cli.js';
import { recordWebhookEvent } from '../support/webhook-history.js';
import { eventually } from '../support/eventually.js';
import { startWorker } from '../support/worker.js';
import { createWebhookService } from '../../gateway/src/features/webhooks/webhooks.service.js';
import { CONSOLE_PAGES } from '../../gateway/src/features/console/console.routes.js';
import { CONSOLE } from '../../gateway/src/pages/areas.js';
import { wordsIn } from '../../gateway/src/pages/language.js';
import { navigationOf } from '../../gateway/src/pages/navigation.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';

if (!hasChromium) console.warn(`console-browser-pages.test.ts${missing}`);

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
const signIn = (page: Page) => signInWithLink(page, gateway!, env!.redisPrefix);

/** Disables and enables a subscription from the webhooks page, then opens its deliveries. */
async function disableAndEnable(page: Page, id: number) {
  const enabled = async () =>
    (await gateway!.db.webhookSubscription.findUniqueOrThrow({ where: { id } })).enabled;
  await page.getByRole('button', { name: `Disable subscription ${id}` }).click();
  await expect.poll(enabled).toBe(false);
  await expectAccessible(page, 'webhooks-disabled');
  await page.getByRole('button', { name: `Enable subscription ${id}` }).click();
  await expect.poll(enabled).toBe(true);
  await page.getByRole('link', { name: `Deliveries of subscription ${id}` }).click();
  await page.waitForURL(`${gateway!.url}/console/webhooks/${id}`);
  await expect.poll(() => page.getByRole('cell', { name: '503' }).count()).toBeGreaterThan(0);
  await expectAccessible(page, 'webhook-deliveries');
}

describe('/console pages in headless Chromium', () => {
  it.skipIf(!hasChromium)(
    "when pages show a secret or a portal link, then htmx keeps no copy of them in the browser's history cache, and signing out empties it",
    async () => {
      const { page, problems } = await watchedPage();
      await signIn(page);
      const historyCache = () =>
        page.evaluate<string | null>("sessionStorage.getItem('htmx-history-cache')");
      const away = async () => {
        await page.getByRole('link', { name: 'Audit' }).click();
        await page.waitForURL(`${gateway!.url}/console/audit`);
      };
      await page.getByLabel('Name', { exact: true }).fill('History partner');
      await page.getByLabel('members:read').check();
      await page.getByRole('button', { name: 'Create client' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('client_secret');
      const secret = (await page.locator('dl.secret code').nth(1).textContent())!;
      expect(secret.length).toBeGreaterThan(20);
      await away();
      expect((await historyCache()) ?? '').not.toContain(secret);
      await page.goto(`${gateway!.url}/console/clients`);
      await page.getByRole('button', { name: 'Portal link: History partner' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('/portal/sign-in/');
      const link = (await page.locator('.notice code').textContent())!;
      await away();
      // Pages without either are kept as htmx keeps them (so this can fail).
      await page.getByRole('link', { name: 'Usage' }).click();
      await page.waitForURL(`${gateway!.url}/console/usage`);
      const kept = (await historyCache())!;
      expect(kept).toContain('/console/audit');
      expect(kept).not.toContain(link);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${gateway!.url}/console`);
      await expect.poll(historyCache).toBeNull();
      expect(problems).toEqual([]);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    'when an operator finds a member by number, then its page shows what is held and its recipients, and it erases the member with a typed confirmation and a reason',
    async () => {
      const dashboard = await LegacyDashboard.connect(env!.legacyUrl);
      const branch = await dashboard.insertBranch({ name: 'Moda' });
      const id = await dashboard.insertMember({
        branch_id: branch,
        full_name: 'Sevgi',
        phone: '05327654321',
      });
      await dashboard.close();
      await syncOnce(env!);
      const { member_no } = await gateway!.db.member.findUniqueOrThrow({ where: { id } });
      const partner = await createTestClient(gateway!.db, { name: 'Reader' });
      await recordRecipients(readModelPool(gateway!.db), [
        { memberId: id, clientId: partner.id, classes: 3 },
      ]);

      const { page, problems } = await watchedPage();
      await signIn(page);
      await page.getByRole('link', { name: 'Members' }).click();
      await page.getByLabel('Member id or number').fill(member_no);
      await page.getByRole('button', { name: 'Find' }).click();
      await expect.poll(() => page.getByRole('cell', { name: '05327654321' }).count()).toBe(1);
      expect(await page.getByRole('cell', { name: partner.client_key }).count()).toBe(1);
      await expectAccessible(page, 'member-report');

      await page.getByLabel('Reason (kept in the operator audit)').fill('KVKK talebi');
      await page.getByLabel(/to confirm/).fill('1' + String(id));
      await page.getByRole('button', { name: `Erase member ${id}` }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('to confirm');
      expect(await gateway!.db.member.count({ where: { id } })).toBe(1);

      await page.getByLabel('Reason (kept in the operator audit)').fill('KVKK talebi');
      await page.getByLabel(/to confirm/).fill(String(id));
      await page.getByRole('button', { name: `Erase member ${id}` }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('erased at');
      expect(await page.getByRole('status').textContent()).toContain(partner.client_key);
      await expectAccessible(page, 'member-erased');
      expect(await gateway!.db.member.count({ where: { id } })).toBe(0);
      const audit = await gateway!.db.operatorAudit.findFirstOrThrow({
        where: { action: 'members.erase' },
      });
      expect(audit).toMatchObject({ source: 'console', target: `member ${id}: KVKK talebi` });
      // The refused confirmation's own 400 is the one expected.
      expect(problems.filter((p) => !p.includes('status of 400'))).toEqual([]);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    "when an operator grants a client classes of members' personal data, then the client holds them, a client under review is confirmed by saving, and the audit has both lists",
    async () => {
      const { page, problems } = await watchedPage();
      await signIn(page);
      await page.getByLabel('Name', { exact: true }).fill('Loyalty partner');
      await page.getByLabel('members:read').check();
      await page.getByLabel(/^contact: /).check();
      await page.getByRole('button', { name: 'Create client' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('client_secret');
      const created = await gateway!.db.apiClient.findFirstOrThrow({
        where: { name: 'Loyalty partner' },
      });
      expect(created.data_classes).toEqual(['basic', 'contact']);
      expect(created.data_classes_review).toBe(false);

      // A client as the release before grants made it: every class, under review.
      await gateway!.db.$executeRaw`
        INSERT INTO api_clients (name, client_key, secret_hash, scopes, updated_at)
        VALUES ('Old partner', 'ck_old_partner', 'x', ARRAY['members:read'], now())`;
      await page.goto(`${gateway!.url}/console/clients`);
      await expect
        .poll(() => page.getByRole('cell', { name: 'all classes: review' }).count())
        .toBe(1);
      await page.getByRole('link', { name: 'Edit: Old partner' }).click();
      await page.waitForURL(`${gateway!.url}/console/clients/ck_old_partner/edit`);
      expect(await page.getByText('Made before data classes existed').count()).toBe(1);
      await expectAccessible(page, 'client-edit-review');
      for (const dataClass of ['identity', 'address', 'access', 'finance', 'staff'])
        await page.getByLabel(new RegExp(`^${dataClass}: `)).uncheck();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('data classes');
      await expectAccessible(page, 'client-edit-granted');
      const old = await gateway!.db.apiClient.findUniqueOrThrow({
        where: { client_key: 'ck_old_partner' },
      });
      expect(old.data_classes).toEqual(['basic', 'contact']);
      expect(old.data_classes_review).toBe(false);
      const audit = await gateway!.db.operatorAudit.findFirstOrThrow({
        where: { client_key: 'ck_old_partner', action: 'clients.grant' },
      });
      expect(audit.source).toBe('console');
      expect(audit.target).toBe(
        'data basic,contact,identity,address,access,finance,staff -> basic,contact',
      );
      expect(problems).toEqual([]);
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
      const client = await createTestClient(gateway!.db, {
        name: 'Club app',
        scopes: ['members:list', 'webhooks:manage'],
      });
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
      // Pages with something on them: a subscription with deliveries, the tables a worker synced.
      const subscription = await createWebhookService(gateway!.db, env!.config()).create(
        client.id,
        { url: 'https://partner.example.com/hook', types: ['members'], description: 'CRM' },
      );
      await recordWebhookEvent(
        gateway!.db,
        subscription.id,
        'delivered',
        [
          { outcome: 'failed', status_code: 503, response: 'Service Unavailable' },
          { outcome: 'delivered', status_code: 200, response: 'ok' },
        ],
        new Date(Date.now() - 600_000),
      );
      const worker = await startWorker(env!);
      await eventually(
        async () => expect(await gateway!.db.syncState.count()).toBe(SYNC_TABLES.length),
        60_000,
      );
      await worker.close();

      // Every page of the navigation but those walked above (a page added to it is checked too).
      for (const { link } of navigationOf(CONSOLE_PAGES)) {
        const path = link.href.slice(`${CONSOLE}/`.length);
        if (path === 'clients' || path === 'members') continue;
        await page.getByRole('link', { name: link.label(wordsIn('en')), exact: true }).click();
        await page.waitForURL(`${gateway!.url}/console/${path}`);
        if (path === 'usage') {
          await expect.poll(() => page.locator('.chart canvas').count()).toBe(1);
          const row = page.locator(
            `#usage-series tr[data-t="${hour.getTime() / 1000}"] td[data-v]`,
          );
          expect(await row.allTextContents()).toEqual(['43', '3', '0', '0']);
          expect(await page.locator('#usage-series tbody tr').count()).toBe(24);
        }
        if (path === 'sync') {
          for (const table of SYNC_TABLES)
            expect(
              await page.locator(`tr[data-table="${table.name}"] td`).nth(1).textContent(),
            ).toBe('poll');
        }
        await expectAccessible(page, path);
        if (path === 'webhooks') await disableAndEnable(page, subscription.id);
      }
      expect(await page.getByRole('cell', { name: 'console.sign-in' }).count()).toBeGreaterThan(0);

      // The usage page's totals are `npm run usage -- --json`'s for the same hours.
      await page.goto(`${gateway!.url}/console/usage?granularity=hour&by=operation`);
      const { from, to, rows } = usageTotalsShown(await page.content());
      const printed = usageRowsPrinted(
        await operatorCliWith(
          env!,
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
      expect(printed.length).toBeGreaterThan(0);
      expect(rows.sort()).toEqual(printed.sort());
      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      await page.context().close();
    },
    120_000,
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
