// A partner of the soak's load (bench/soak/api-load.ts): its credentials, the gateway it talks
// to, its token pair renewed now and then; every answer it gets is recorded (time, group,
// latency, status) for the parent.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Credentials, Sample } from './messages.js';

const RENEW_AFTER_401_MS = 5000;

/** Answers recorded since the last report to the parent. */
export const samples: Sample[] = [];

export interface Answer {
  status: number;
  body: Record<string, unknown> | null;
}

/** A JSON body, or null (none, or not JSON: a proxy's or a crashed server's answer). */
function bodyOf(text: string): Answer['body'] {
  try {
    return text ? (JSON.parse(text) as Answer['body']) : null;
  } catch {
    return null;
  }
}

/** Requests that reached no gateway (refused, reset) and went to the next one. */
export let failovers = 0;
/**
 * 401s to the pair a partner still held when the answer came, with no refresh under way: its
 * token refused (expired, or not taken by the gateway that answered), unlike a 401 to a pair a
 * refresh was replacing.
 */
export let refusedHeld = 0;

/**
 * One request to `bases[next]`, timed and recorded under `group`; no answer at all is status 0.
 * With several gateways it does what a load balancer in front of them does: a request that
 * reaches none (connection refused or reset, as while a gateway is replaced) goes to the next,
 * until each was tried once. Only such requests: the gateway never saw them, or a write carries
 * an Idempotency-Key.
 */
async function call(
  group: string,
  bases: readonly string[],
  next: number,
  path: string,
  init: RequestInit = {},
): Promise<Answer> {
  const started = performance.now();
  let answer: Answer = { status: 0, body: null };
  for (let tried = 0; tried < bases.length && answer.status === 0; tried++) {
    if (tried > 0) failovers += 1;
    try {
      const url = `${bases[(next + tried) % bases.length]}/api/v1${path}`;
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
      answer = { status: response.status, body: bodyOf(await response.text()) };
    } catch {
      // No answer: the next gateway, if any.
    }
  }
  samples.push([Date.now(), group, performance.now() - started, answer.status]);
  return answer;
}

/**
 * A partner: its credentials, the gateway it talks to (or the gateways, taken in turn), its
 * current token pair.
 */
export class Partner {
  private access = '';
  private refresh = '';
  private requests = 0;
  private renewedAt = 0;
  private renewing: Promise<void> | undefined;
  private readonly bases: readonly string[];
  private turn = 0;

  constructor(
    readonly who: Credentials,
    base: string | readonly string[],
  ) {
    this.bases = typeof base === 'string' ? [base] : base;
  }

  /** The gateway the next request goes to first (round robin). */
  private nextBase(): number {
    return this.turn++ % this.bases.length;
  }

  /**
   * A new pair: by client credentials, or every other time by refresh when one is held. One at a
   * time: two refreshes with the same refresh token would be a reuse, which revokes the chain.
   */
  renew(): Promise<void> {
    this.renewing ??= this.renewOnce().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async renewOnce(): Promise<void> {
    this.renewedAt = Date.now();
    const byRefresh = this.refresh !== '' && this.requests++ % 2 === 1;
    const [path, body] = byRefresh
      ? ['/auth/refresh', { refresh_token: this.refresh }]
      : ['/auth/token', { client_key: this.who.key, client_secret: this.who.secret }];
    const answer = await call('auth', this.bases, this.nextBase(), path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const data = answer.body?.data as { access_token?: string; refresh_token?: string } | undefined;
    if (data?.access_token && data.refresh_token) {
      this.access = data.access_token;
      this.refresh = data.refresh_token;
    } else if (byRefresh) {
      this.refresh = '';
    }
  }

  /**
   * Renews every `seconds` while the run lasts, the first time after `phase` of that (0 < phase
   * ≤ 1). Partners each keep their own clock; renewing all at one instant, the load would bring
   * the gateway a secret hash per partner at once, every time (a stall of every answer).
   */
  async keepRenewing(seconds: number, until: () => boolean, phase = 1): Promise<void> {
    let wait = seconds * phase * 1000;
    while (!until()) {
      const end = Date.now() + wait;
      while (Date.now() < end && !until()) await sleep(Math.min(1000, end - Date.now()));
      if (!until()) await this.renew();
      wait = seconds * 1000;
    }
  }

  get(group: string, path: string): Promise<Answer> {
    return this.authorized(group, path, {});
  }

  /** A JSON body by `method`, with the bearer token (and `headers`). */
  send(
    method: 'POST' | 'PUT',
    path: string,
    body: unknown,
    group: string,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    return this.authorized(group, path, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  /**
   * With the bearer token. A 401 to the pair still held (it expired while the gateway was slow,
   * or a restart lost it) brings a new pair, at most one in RENEW_AFTER_401_MS so refusals do not
   * turn into a flood of token requests; a 401 to a pair already replaced is the refresh's
   * revocation of the old pair meeting a request in flight, and needs nothing.
   */
  private async authorized(group: string, path: string, init: RequestInit): Promise<Answer> {
    const access = this.access;
    const answer = await call(group, this.bases, this.nextBase(), path, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${access}` },
    });
    const stillHeld = access === this.access;
    // While a refresh is in flight, the gateway may already have revoked the pair it replaces.
    if (answer.status === 401 && stillHeld && this.renewing === undefined) refusedHeld += 1;
    if (answer.status === 401 && stillHeld && Date.now() - this.renewedAt > RENEW_AFTER_401_MS)
      await this.renew();
    return answer;
  }
}
