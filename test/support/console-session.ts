// An operator's browser, reduced to what the console's security tests need: one cookie, the CSRF
// token of the last page, and form posts from the console's own origin.
import { createSignInLink } from '../../gateway/src/pages/sign-in-links.js';
import { testLinkKeys } from './environment.js';
import type { RunningGateway } from './gateway.js';

export interface PageAnswer {
  status: number;
  headers: Headers;
  html: string;
}

export class ConsoleBrowser {
  cookie = '';
  csrf = '';
  /** Every Set-Cookie line the gateway sent, newest last. */
  readonly setCookies: string[] = [];

  /** `gateway`: where the pages are; its Redis only for signIn, which stores a link there. */
  constructor(readonly gateway: Pick<RunningGateway, 'url'> & Partial<RunningGateway>) {}

  async request(path: string, init: RequestInit = {}): Promise<PageAnswer> {
    const headers = new Headers(init.headers);
    if (this.cookie) headers.set('cookie', this.cookie);
    const response = await fetch(`${this.gateway.url}${path}`, {
      ...init,
      headers,
      redirect: 'manual',
    });
    for (const line of response.headers.getSetCookie()) {
      this.setCookies.push(line);
      this.cookie = line.split(';')[0]!;
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

/** The usage page's period and its totals table, one row of cell texts per line. */
export function usageTotalsShown(html: string) {
  const [, from, to] = /From (\S+Z) to (\S+Z)/.exec(html)!;
  const totals = html.slice(html.indexOf('id="usage-totals"'));
  const rows = [
    ...totals.matchAll(/<tr><td><code>([^<]+)<\/code><\/td>((?:<td class="num">[^<]*<\/td>)+)/g),
  ].map(([, name, cells]) => [
    name!,
    ...[...cells!.matchAll(/<td class="num">([^<]*)<\/td>/g)].map((m) => m[1]!),
  ]);
  return { from: from!, to: to!, rows };
}

/** `npm run usage -- --by operation --json`'s rows as the page's totals show them. */
export function usageRowsPrinted(printed: string): string[][] {
  return (JSON.parse(printed) as { rows: any[] }).rows.map((r): string[] => [
    String(r.operation),
    ...[r.requests, r.client_errors, r.server_errors, r.rate_limited, r.bytes_out].map(String),
    ...[r.latency_ms.p50, r.latency_ms.p95, r.latency_ms.p99].map((n: number | null) =>
      n === null ? '' : String(n),
    ),
  ]);
}
