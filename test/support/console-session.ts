// An operator's browser, reduced to what the console's security tests need: its cookies, the CSRF
// token of the last page, and form posts from the console's own origin. It reads the pages in
// English unless told otherwise (the `lang` cookie of the frame's switch): the console speaks
// Turkish to a visitor who chose nothing (docs/decisions/0025-page-languages.md).
import { formatOf, type Locale } from '../../gateway/src/pages/locale.js';
import { createSignInLink } from '../../gateway/src/pages/sign-in-links.js';
import { testLinkKeys } from './environment.js';
import type { RunningGateway } from './gateway.js';

export interface PageAnswer {
  status: number;
  headers: Headers;
  html: string;
}

export class ConsoleBrowser {
  /** The cookies the browser holds, by name. */
  readonly cookies = new Map<string, string>();
  csrf = '';
  /** Every Set-Cookie line the gateway sent, newest last. */
  readonly setCookies: string[] = [];

  /**
   * `gateway`: where the pages are; its Redis only for signIn, which stores a link there.
   * `lang`: the language chosen with the frame's switch; null: none, as a first visit.
   */
  constructor(
    readonly gateway: Pick<RunningGateway, 'url'> & Partial<RunningGateway>,
    options: { lang?: Locale | null } = {},
  ) {
    const lang = options.lang === undefined ? 'en' : options.lang;
    if (lang) this.cookies.set('lang', lang);
  }

  /** The Cookie header the browser sends; setting it replaces every cookie held. */
  get cookie(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  set cookie(header: string) {
    this.cookies.clear();
    for (const pair of header.split(';')) {
      const at = pair.indexOf('=');
      if (at > 0) this.cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
  }

  async request(path: string, init: RequestInit = {}): Promise<PageAnswer> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set('cookie', this.cookie);
    const response = await fetch(`${this.gateway.url}${path}`, {
      ...init,
      headers,
      redirect: 'manual',
    });
    for (const line of response.headers.getSetCookie()) {
      this.setCookies.push(line);
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      // An expired or emptied cookie is gone (a sign-out's).
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line))
        this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const html = await response.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(html);
    if (token) this.csrf = token[1]!;
    return { status: response.status, headers: response.headers, html };
  }

  get(path: string) {
    return this.request(path);
  }

  /** A form post; `origin` null sends none, `csrf` null sends no token. */
  post(
    path: string,
    fields: Record<string, string | string[]> = {},
    options: { origin?: string | null; csrf?: string | null } = {},
  ) {
    const body = new URLSearchParams();
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (csrf !== null) body.append('_csrf', csrf);
    for (const [name, value] of Object.entries(fields))
      for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
    const origin = options.origin === undefined ? this.gateway.url : options.origin;
    return this.request(path, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(origin === null ? {} : { origin }),
      },
      body,
    });
  }

  /**
   * Opens a sign-in link of the console or the portal (its path) and presses its button, as a
   * person does; the answer is the redirect to the area's first page.
   */
  async useLink(path: string): Promise<PageAnswer> {
    await this.get(path);
    const answer = await this.post(path);
    if (answer.status !== 303)
      throw new Error(`${path.split('/')[1]} sign-in answered ${answer.status}`);
    return answer;
  }

  /** Opens a fresh link and presses its button: a signed-in operator session. */
  async signIn(prefix: string, name = 'Operator'): Promise<void> {
    const { redis } = this.gateway;
    if (!redis) throw new Error("signIn stores its link in the gateway's Redis: none was given");
    const token = await createSignInLink(redis, testLinkKeys(prefix), { name }, 60_000);
    await this.useLink(`/console/sign-in/${token}`);
  }
}

/** The usage page's period (its two moments' datetime) and its totals table, one row of cell texts per line. */
export function usageTotalsShown(html: string) {
  const range = html.slice(html.indexOf('id="usage-range"'));
  const [, from, to] = /datetime="([^"]+)".*?datetime="([^"]+)"/s.exec(range)!;
  const totals = html.slice(html.indexOf('id="usage-totals"'));
  const rows = [
    ...totals.matchAll(/<tr><td><code>([^<]+)<\/code><\/td>((?:<td class="num">[^<]*<\/td>)+)/g),
  ].map(([, name, cells]) => [
    name!,
    ...[...cells!.matchAll(/<td class="num">([^<]*)<\/td>/g)].map((m) => m[1]!),
  ]);
  return { from: from!, to: to!, rows };
}

/** `npm run usage -- --by operation --json`'s rows as the page's totals show them, in `locale`. */
export function usageRowsPrinted(printed: string, locale: Locale = 'en'): string[][] {
  const format = formatOf(locale);
  const number = (n: number) => format.number(n);
  return (JSON.parse(printed) as { rows: any[] }).rows.map((r): string[] => [
    String(r.operation),
    ...[r.requests, r.client_errors, r.server_errors, r.rate_limited, r.bytes_out].map(number),
    ...[r.latency_ms.p50, r.latency_ms.p95, r.latency_ms.p99].map((n: number | null) =>
      n === null ? '' : number(n),
    ),
  ]);
}
