// A change-feed follower of the soak's load (bench/soak/api-load.ts): a partner keeping its own
// copy by GET /changes, which at the end compares it with what the list endpoints answer.
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { LISTS } from '../../test/support/partner-lists.js';
import type { CopyComparison, Credentials } from './messages.js';
import { Partner } from './partner.js';

/**
 * How long a caught-up follower waits before asking again: a partner that wants changes within a
 * second, and enough answers in a report for the group's p99 to be more than its sixth slowest.
 */
const POLL_MS = 250;

/** A partner keeping a copy by GET /changes, polling every POLL_MS when caught up. */
export class Follower {
  readonly copy = new Map<string, unknown>();
  readonly partner: Partner;
  private cursor = '';
  expired = 0;

  constructor(
    readonly who: Credentials,
    /** The gateway, or the gateways taken in turn (Partner). */
    base: string | readonly string[],
    private readonly tokenEverySeconds: number,
    /** Its phase of the renewal period (Partner.keepRenewing). */
    private readonly renewalPhase: number,
  ) {
    this.partner = new Partner(who, base);
  }

  /** One page; whether more follow at once. */
  async step(): Promise<boolean> {
    const query = `limit=500${this.cursor ? `&cursor=${encodeURIComponent(this.cursor)}` : ''}`;
    const answer = await this.partner.get('changes', `/changes?${query}`);
    if (answer.status === 410) {
      this.expired += 1;
      this.cursor = '';
      this.copy.clear();
      return true;
    }
    if (answer.status !== 200 || !answer.body) return false;
    const changes = answer.body.data as { type: string; id: number; op: string; data: unknown }[];
    for (const c of changes) {
      if (c.op === 'delete') this.copy.delete(`${c.type}:${c.id}`);
      else this.copy.set(`${c.type}:${c.id}`, c.data);
    }
    this.cursor = answer.body.next_cursor as string;
    return answer.body.has_more === true;
  }

  async follow(until: () => boolean): Promise<void> {
    await this.partner.renew();
    const renewing = this.partner.keepRenewing(this.tokenEverySeconds, until, this.renewalPhase);
    while (!until()) if (!(await this.step())) await sleep(POLL_MS);
    await renewing;
  }

  /** Caught up, then the copy against every list (member packages are listed per member). */
  async compare(): Promise<CopyComparison> {
    await this.partner.renew();
    while (await this.step());
    const lists = new Map<string, unknown>();
    for (const [type, path] of Object.entries(LISTS)) {
      for (let page = 1; ; page++) {
        const answer = await this.partner.get('lists', `${path}?limit=200&page=${page}`);
        if (answer.status !== 200) throw new Error(`feed copy: ${path} answered ${answer.status}`);
        const body = answer.body as { data: { id: number }[]; pagination: { total_pages: number } };
        for (const item of body.data) lists.set(`${type}:${item.id}`, item);
        if (page >= body.pagination.total_pages) break;
      }
    }
    const copied = [...this.copy].filter(([key]) => !key.startsWith('member_packages:'));
    const examples: string[] = [];
    let missing = 0;
    let different = 0;
    for (const [key, value] of lists) {
      if (!this.copy.has(key)) missing += 1;
      else if (!isDeepStrictEqual(this.copy.get(key), value)) different += 1;
      else continue;
      if (examples.length < 5) examples.push(key);
    }
    const extra = copied.filter(([key]) => !lists.has(key)).length;
    return {
      follower: this.who.bound ? 'bound to a branch' : 'every branch',
      copied: copied.length,
      listed: lists.size,
      missing,
      extra,
      different,
      examples,
      expired: this.expired,
    };
  }
}
