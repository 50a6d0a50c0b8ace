// The soak's partners, a process of their own (forked by bench/soak.ts): readers walking every
// endpoint group at a steady rate (some bound to a branch), one writer creating and updating
// members, two change-feed followers keeping a copy, and every client asking for a new token pair
// now and then (every other time by refresh). Each answer's time, group and status go to the
// parent every second; at the end each follower compares its copy with the lists.
//   node --import tsx bench/soak/api-load.ts '<ApiLoadOptions as JSON>'
import { setTimeout as sleep } from 'node:timers/promises';
import { Follower } from './feed-follower.js';
import type { ApiCommand, ApiLoadOptions, ApiMessage, Credentials } from './messages.js';
import { Partner, samples } from './partner.js';

const options = JSON.parse(process.argv[2]!) as ApiLoadOptions;
let loading = true;
const send = (message: ApiMessage) => process.send?.(message);
const pick = <T>(items: T[], i: number): T => items[i % items.length]!;

/** The reads a partner walks through in turn, by endpoint group. */
function readsOf(who: Credentials, i: number): [group: string, path: string][] {
  const members = who.bound ? options.boundMemberIds : options.memberIds;
  const member = () => pick(members, i++ * 7919);
  const branch = who.bound ? options.branchIds[0]! : pick(options.branchIds, i);
  return [
    ['members', '/members?limit=50'],
    ['members', `/members/${member()}`],
    ['members', `/members/${member()}/packages`],
    ['members', `/members/${member()}/financial`],
    ['members', '/members?search=ayse&limit=20'],
    ['branches', '/branches'],
    ['branches', `/branches/${branch}`],
    ['branches', `/branches/${branch}/stats`],
    ['packages', '/packages'],
    ['financial', '/financial/transactions?limit=50'],
    ['financial', '/financial/summary'],
    ['financial', '/financial/installments?limit=20'],
    ['dashboard', '/dashboard/stats'],
    ['dashboard', '/dashboard/daily'],
    ['market', '/market/products'],
    ['market', '/market/categories'],
    ['staff', who.bound ? '/staff?limit=20' : `/staff/${pick(options.staffIds, i)}`],
    ['notifications', '/notifications?limit=20'],
    ['private_lessons', '/private-lessons?limit=20'],
    ['presence', '/presence?limit=20'],
    ['webhooks', '/webhooks'],
  ];
}

/** `rate` calls a second, each due on its own tick (a slow answer does not slow the next). */
async function paced(rate: number, until: () => boolean, task: (n: number) => Promise<unknown>) {
  const started = Date.now();
  const inFlight = new Set<Promise<unknown>>();
  for (let n = 0; !until(); n++) {
    await sleep(Math.max(0, started + (n * 1000) / rate - Date.now()));
    const running = task(n).finally(() => inFlight.delete(running));
    inFlight.add(running);
  }
  await Promise.all(inFlight);
}

/** Each partner's phase of the renewal period: the readers, the writer, the feed followers. */
const partnerCount = options.readers.length + 1 + options.followers.length;
const renewalPhase = (k: number) => (k + 1) / partnerCount;

async function read(who: Credentials, index: number): Promise<void> {
  const partner = new Partner(who, pick(options.gateways, index));
  await partner.renew();
  const renewing = partner.keepRenewing(
    options.tokenEverySeconds,
    () => !loading,
    renewalPhase(index),
  );
  await paced(
    options.readRate,
    () => !loading,
    async (n) => {
      const reads = readsOf(who, index + n);
      const [group, path] = reads[(index + n) % reads.length]!;
      await partner.get(group, path);
    },
  );
  await renewing;
}

/**
 * One create in 25 (a new phone each), updates of generated members otherwise: a club's member
 * list grows by a few a day, and the dashboard keeps soft-deleted members for ever, so creates at
 * the soak's pace would grow the club's data and hide what the API keeps.
 */
async function write(): Promise<void> {
  const partner = new Partner(options.writer, options.gateways[0]!);
  await partner.renew();
  const renewing = partner.keepRenewing(
    options.tokenEverySeconds,
    () => !loading,
    renewalPhase(options.readers.length),
  );
  const phoneBase = Math.floor(Math.random() * 9_000_000);
  await paced(
    options.writeRate,
    () => !loading,
    (n) =>
      n % 25 === 0
        ? partner.send(
            'POST',
            '/members',
            {
              full_name: 'Soak API',
              // 0529: outside the generator's 0530–0599, so never a duplicate.
              phone: `0529${String((phoneBase + n) % 10_000_000).padStart(7, '0')}`,
              branch_id: pick(options.branchIds, n),
            },
            'member writes',
          )
        : partner.send(
            'PUT',
            `/members/${pick(options.memberIds, n * 31)}`,
            // Not the address: the legacy writer's markers are there.
            { email: `soak${n}@example.com` },
            'member writes',
          ),
  );
  await renewing;
}

const followers = options.followers.map(
  (who, j) =>
    new Follower(
      who,
      options.gateways[0]!,
      options.tokenEverySeconds,
      renewalPhase(options.readers.length + 1 + j),
    ),
);
let following = true;
const reporter = setInterval(() => send({ kind: 'samples', samples: samples.splice(0) }), 1000);
const followed = followers.map((f) => f.follow(() => !following));
const loads = [...options.readers.map((who, i) => read(who, i)), write()];

process.on('message', (command: ApiCommand) => {
  if (command.kind === 'stop-load') loading = false;
  if (command.kind === 'compare') {
    following = false;
    void (async () => {
      await Promise.all([...loads, ...followed]);
      const comparisons = await Promise.all(followers.map((f) => f.compare()));
      clearInterval(reporter);
      send({ kind: 'samples', samples: samples.splice(0) });
      send({ kind: 'compared', comparisons });
      process.disconnect?.();
    })();
  }
});
