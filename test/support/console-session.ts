// An operator's browser, reduced to what the console's security tests need: one cookie, the CSRF
// token of the last page, and form posts from the console's own origin.
import { createSignInLink } from '../../gateway/src/pages/sign-in-links.js';
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

  constructor(readonly gateway: RunningGateway) {}

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

  /** Opens a fresh link and presses its button: a signed-in operator session. */
  async signIn(prefix: string, name = 'Operator'): Promise<void> {
    const token = await createSignInLink(this.gateway.redis, prefix, { name }, 60_000);
    await this.get(`/console/sign-in/${token}`);
    const answer = await this.post(`/console/sign-in/${token}`);
    if (answer.status !== 303) throw new Error(`sign-in answered ${answer.status}`);
  }
}
