// The pages' languages (docs/decisions/0025-page-languages.md): the console speaks Turkish to an
// operator who chose nothing, with none of the English catalogue's words on any page; the portal,
// the sign-in and the 404 pages follow the browser's Accept-Language; the frame's switch remembers
// a choice for a year and leads back only to a path of its own area; dates and numbers are
// written by Intl in the page's language.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientsWords } from '../../gateway/src/features/console/clients.page.js';
import { CONSOLE_PAGES } from '../../gateway/src/features/console/console.routes.js';
import { overviewWords } from '../../gateway/src/features/portal/overview.page.js';
import '../../gateway/src/features/portal/portal.routes.js';
import { formatOf } from '../../gateway/src/pages/locale.js';
import { en } from '../../gateway/src/pages/messages/en.js';
import { tr } from '../../gateway/src/pages/messages/tr.js';
import { navigationOf } from '../../gateway/src/pages/navigation.js';
import { PAGE_WORDS } from '../../gateway/src/pages/page-words.js';
import { ConsoleBrowser } from '../support/console-session.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { createTestClient, startGateway, type RunningGateway } from '../support/gateway.js';
import { partnerSignedIn } from '../support/portal-session.js';

let env: TestEnvironment;
let gateway: RunningGateway;
let operator: ConsoleBrowser;
let client: Awaited<ReturnType<typeof createTestClient>>;

beforeAll(async () => {
  env = await createTestEnvironment();
  gateway = await startGateway(env);
  operator = new ConsoleBrowser(gateway, { lang: null });
  await operator.signIn(env.redisPrefix, 'Operatör');
  client = await createTestClient(gateway.db, { scopes: ['members:read', 'webhooks:manage'] });
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

/** The catalogue's fixed texts of several words, beside the same key's text in `other`. */
function phrases(words: unknown, other: unknown): [string, string][] {
  if (typeof words === 'string')
    return /\s/.test(words.trim()) && words !== other ? [[words.trim(), String(other)]] : [];
  if (words === null || typeof words !== 'object') return [];
  return Object.entries(words).flatMap(([key, value]) =>
    phrases(value, (other as Record<string, unknown>)[key]),
  );
}

/**
 * The English phrases a Turkish page must not show: the catalogue's and every page's own (the
 * areas' routes, imported above, load every page).
 */
const ENGLISH = [[en, tr], ...PAGE_WORDS.map((words) => [words.en, words.tr])]
  .flatMap(([english, turkish]) => phrases(english, turkish))
  .map(([english]) => english);

/** Every page of the console's navigation: a page added to it is checked here too. */
const NAVIGATION = navigationOf(CONSOLE_PAGES).map(({ link }) => link.href);

const decoded = (html: string) =>
  html
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

describe('the pages’ languages', () => {
  it('when an operator chose no language, then every console page is Turkish, lang="tr", with none of the English catalogue’s words', async () => {
    expect(NAVIGATION).toContain('/console/audit');
    for (const path of [...NAVIGATION, `/console/clients/${client.client_key}/edit`]) {
      const page = await operator.get(path);
      expect(page.status, path).toBe(200);
      expect(page.html, path).toContain('<html lang="tr">');
      expect(page.headers.get('content-language'), path).toBe('tr');
      expect(page.html, path).toContain(clientsWords({ locale: 'tr' }).nav);
      expect(page.html, path).toContain(tr.frame.signOut);
      const html = decoded(page.html);
      expect(
        ENGLISH.filter((phrase) => html.includes(phrase)),
        path,
      ).toEqual([]);
    }
  });

  it('when the console shows a moment and a count, then Intl writes them in Turkish', async () => {
    const page = await operator.get('/console/audit');
    const [, at, text] = /<time datetime="([^"]+)">([^<]+)<\/time>/.exec(page.html)!;
    expect(text).toBe(formatOf('tr').utc(new Date(at!)));
    expect(text).not.toBe(formatOf('en').utc(new Date(at!)));
    const english = new ConsoleBrowser(gateway, { lang: 'en' });
    english.cookie = `${operator.cookie.replace(/lang=\w+;?\s*/, '')}; lang=en`;
    const same = await english.get('/console/audit');
    expect(same.html).toContain('<html lang="en">');
    expect(same.html).toContain(`<time datetime="${at}">${formatOf('en').utc(new Date(at!))}`);
  });

  it('when a refusal has a reason, then the console words it in Turkish', async () => {
    const page = await operator.post('/console/clients/no-such-key/disable');
    expect(page.status).toBe(400);
    expect(decoded(page.html)).toContain(
      tr.refusals['no-client']({ key: 'no-client', clientKey: 'no-such-key' }),
    );
  });

  it('when a partner’s browser prefers Turkish, then the portal is Turkish; English, or no preference, English', async () => {
    const partner = await partnerSignedIn(gateway, env.redisPrefix, client);
    partner.cookies.delete('lang');
    const as = (language?: string) =>
      partner.request('/portal/overview', {
        headers: language ? { 'accept-language': language } : {},
      });
    const turkish = await as('tr-TR,tr;q=0.9,en;q=0.8');
    expect(turkish.html).toContain('<html lang="tr">');
    expect(turkish.html).toContain(overviewWords({ locale: 'tr' }).title);
    expect(turkish.headers.get('vary')).toMatch(/Accept-Language/i);
    const english = await as('en-US,en;q=0.9,tr;q=0.8');
    expect(english.html).toContain('<html lang="en">');
    expect(english.html).toContain(overviewWords({ locale: 'en' }).title);
    expect((await as()).html).toContain('<html lang="en">');
  });

  it('when a signed-out visitor opens a sign-in or an unknown page, then it follows the browser, the console’s too', async () => {
    const visitor = new ConsoleBrowser(gateway, { lang: null });
    const turkish = { headers: { 'accept-language': 'tr' } };
    const signIn = await visitor.request('/console', turkish);
    expect(signIn.html).toContain('<html lang="tr">');
    expect(signIn.html).toContain(tr.signIn.title);
    const lost = await visitor.request('/portal/no-such-page', turkish);
    expect(lost.status).toBe(404);
    expect(lost.html).toContain(tr.errors.notFound);
    const english = await visitor.request('/console', { headers: { 'accept-language': 'en' } });
    expect(english.html).toContain('<html lang="en">');
    expect(visitor.setCookies).toEqual([]);
  });

  it('when the switch is used, then the choice is kept a year for both areas, and it leads back only to a path of its area', async () => {
    const visitor = new ConsoleBrowser(gateway, { lang: null });
    visitor.cookie = operator.cookie;
    visitor.cookies.delete('lang');
    const chosen = await visitor.get(
      `/console/language/en?back=${encodeURIComponent('/console/usage?by=status')}`,
    );
    expect(chosen.status).toBe(303);
    expect(chosen.headers.get('location')).toBe('/console/usage?by=status');
    const cookie = chosen.headers.getSetCookie().find((line) => line.startsWith('lang='))!;
    expect(cookie).toMatch(/^lang=en;/);
    expect(cookie).toMatch(/Max-Age=31536000/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Path=\//);
    expect((await visitor.get('/console/usage')).html).toContain('<html lang="en">');
    expect((await visitor.get('/portal')).html).toContain('<html lang="en">');
    for (const back of [
      'https://evil.example/console',
      '//evil.example/console',
      '/\\evil.example',
      '/console/..//evil.example',
      '/portal/overview',
      'javascript:alert(1)',
    ]) {
      const answer = await visitor.get(`/console/language/tr?back=${encodeURIComponent(back)}`);
      expect(answer.headers.get('location'), back).toBe('/console');
    }
    expect((await visitor.get('/console/usage')).html).toContain('<html lang="tr">');
    const unknown = await visitor.get('/console/language/fr?back=/console/usage');
    expect(unknown.headers.getSetCookie().filter((line) => line.startsWith('lang='))).toEqual([]);
    expect(visitor.cookies.get('lang')).toBe('tr');
  });
});
