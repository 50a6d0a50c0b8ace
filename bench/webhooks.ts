// Webhook figures (decision 0012), the worker compiled and run as production runs it:
//  1. latency: `rate` legacy changes per second for `seconds` (the lag benchmark's writes) with
//     one subscription to every type, received by a local partner answering at once: legacy
//     commit → webhook received, p50 and p99, beside commit → visible in the read model of the
//     same run;
//  2. rate: a worker running delivery alone (WORKER_ROLES=webhooks) sends `events` events as
//     fast as it can to the same partner, in 5 rounds; the median deliveries per second and the
//     worker's CPU per delivery;
//  3. fan-out: 1, 100 and 1,000 subscriptions of one client to one type, each at its own path of
//     one partner, each change announced as the sync announces its commits: commit → the last
//     subscription's delivery, p50 and p99 over 10 changes, and the deliveries per second of 20
//     changes at once;
//  4. fairness: that partner's change → received p99 over 50 changes, alone, then while another
//     client's endpoint accepts connections and never answers 300 events of its own.
//   npm run bench -- --only webhooks [--lag-rate 50] [--lag-seconds 60] [--lag-scale 35] [--profile]
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '#common/config.js';
import { createRedis } from '#common/redis.js';
import { changesCommittedChannel } from '../worker/src/queues.js';
import { createReadModelClient, readModelPool, type ReadModelClient } from '#common/databases.js';
import { createClient } from '../gateway/src/features/clients/clients.repository.js';
import { createClientSecrets } from '../gateway/src/trust/client-secrets.js';
import { createWebhookService } from '../gateway/src/features/webhooks/webhooks.service.js';
import { generateLegacyData } from '../scripts/legacy/generate-data.js';
import { connectLegacy } from '../scripts/legacy/legacy-database.js';
import { benchEnvironment, makeTempDir, releaseInTurn, removeTempDir } from './cleanup.js';
import { BENCH_SECRETS_KEY, startWorker, type Started } from './gateway/processes.js';
import { printProfileSplit } from './gateway/profile.js';
import { measureVisibility, percentile, type LagOptions } from './lag-writes.js';

const MARKER = /(?:lag|fair)-\d+/;
/** The fairness figure: changes of the answering partner, and the silent one's events. */
const FAIR_CHANGES = 50;
const FAIR_PACE_MS = 400;
const SILENT_EVENTS = 300;
/** Rounds of the delivery rate. */
const RATE_ROUNDS = 5;
/** The fan-out figure: subscriptions following one type, its changes timed, then at once. */
const FANOUT_SUBSCRIPTIONS = [1, 100, 1000];
const FANOUT_CHANGES = 10;
const FANOUT_PACE_MS = 1000;
/**
 * Added at random to each pace above: both are multiples of the worker's dispatch interval
 * (WEBHOOK_DISPATCH_INTERVAL_MS, 200 ms), so changes paced exactly would each meet a pass at the
 * same point of it, and their waits would be one sample repeated.
 */
const PACE_JITTER_MS = 200;
const paced = (ms: number) => sleep(ms + Math.random() * PACE_JITTER_MS);
const FANOUT_BURST = 20;
const FANOUT_MARKER = /fan-\d+-\d+/;

/** The partner: answers 204 at once and notes when each lag marker first arrived. */
export async function startPartner() {
  const firstSeen = new Map<string, number>();
  let received = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received += 1;
      const marker = MARKER.exec(Buffer.concat(chunks).toString('utf8'))?.[0];
      if (marker && !firstSeen.has(marker)) firstSeen.set(marker, Date.now());
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    firstSeen,
    received: () => received,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A partner of many subscriptions: per marker, the deliveries that came and the last one's time. */
async function startFanoutPartner() {
  const seen = new Map<string, { count: number; lastAt: number }>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const marker = FANOUT_MARKER.exec(Buffer.concat(chunks).toString('utf8'))?.[0];
      if (marker) {
        const entry = seen.get(marker) ?? { count: 0, lastAt: 0 };
        seen.set(marker, { count: entry.count + 1, lastAt: Date.now() });
      }
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Waits until each marker has reached `count` subscriptions (at most 5 minutes). */
async function reachedAll(
  partner: Awaited<ReturnType<typeof startFanoutPartner>>,
  markers: readonly string[],
  count: number,
) {
  const started = Date.now();
  while (Date.now() - started < 300_000) {
    if (markers.every((marker) => (partner.seen.get(marker)?.count ?? 0) >= count)) return;
    await sleep(50);
  }
}

/**
 * With `subscriptions` following notifications: each of FANOUT_CHANGES changes' commit → its
 * delivery to the last subscription, sorted (Infinity: not all reached), and the deliveries per
 * second of FANOUT_BURST changes committed at once.
 */
async function timeFanout(
  pool: ReturnType<typeof readModelPool>,
  partner: Awaited<ReturnType<typeof startFanoutPartner>>,
  ids: number[],
  subscriptions: number,
  /** Announces a commit, as the sync does after each of its own (worker/src/queues.ts). */
  announce: () => Promise<unknown>,
) {
  const committed = new Map<string, number>();
  for (const id of ids.slice(0, FANOUT_CHANGES)) {
    const marker = `fan-${subscriptions}-${id}`;
    await pool.query(`UPDATE notifications SET title = $1 WHERE id = $2`, [marker, id]);
    committed.set(marker, Date.now());
    await announce();
    await paced(FANOUT_PACE_MS);
  }
  await reachedAll(partner, [...committed.keys()], subscriptions);
  const lastDelivery = [...committed]
    .map(([marker, at]) => {
      const seen = partner.seen.get(marker);
      return seen && seen.count >= subscriptions ? seen.lastAt - at : Infinity;
    })
    .sort((a, b) => a - b);
  const burst = ids.slice(FANOUT_CHANGES, FANOUT_CHANGES + FANOUT_BURST);
  await pool.query(
    `UPDATE notifications SET title = 'fan-' || $1::int || '-' || id WHERE id = ANY($2::int[])`,
    [subscriptions, burst],
  );
  const started = Date.now();
  await announce();
  const markers = burst.map((id) => `fan-${subscriptions}-${id}`);
  await reachedAll(partner, markers, subscriptions);
  const last = Math.max(...markers.map((marker) => partner.seen.get(marker)?.lastAt ?? Infinity));
  const delivered = markers.reduce(
    (sum, marker) => sum + (partner.seen.get(marker)?.count ?? 0),
    0,
  );
  return { lastDelivery, perSecond: delivered / ((last - started) / 1000) };
}

/** An endpoint that accepts every connection and never answers. */
async function startSilentPartner() {
  const server = createServer(() => undefined);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/silent`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);

/**
 * A client allowed every type the lag writes change, subscribed to all of them at `url`: its
 * events are the changes after this call. `variables` are the worker's, whose configuration seals
 * the secret as the worker will open it.
 */
export async function subscribePartner(
  readModel: ReadModelClient,
  variables: Record<string, string>,
  url: string,
) {
  const client = await createClient(readModel, createClientSecrets([BENCH_SECRETS_KEY]), {
    name: 'bench partner',
    scopes: [
      'members:read',
      'financial:read',
      'presence:read',
      'notifications:read',
      'webhooks:manage',
    ],
    branchId: null,
  });
  const service = createWebhookService(readModel, loadConfig(variables));
  const subscription = await service.create(client.id, {
    url,
    types: ['members', 'financial_transactions', 'presence', 'notifications'],
    description: 'bench',
  });
  return { service, subscription };
}

/** Each lag marker's legacy commit → first received by the partner, sorted (Infinity: never). */
export function commitToReceived(
  committedAt: Map<string, number>,
  partner: Awaited<ReturnType<typeof startPartner>>,
): number[] {
  return [...committedAt]
    .map(([marker, at]) => (partner.firstSeen.get(marker) ?? Infinity) - at)
    .sort((a, b) => a - b);
}

/**
 * Events the worker's sweep queued again so far: each one a job and a read of its own, where a
 * page's first tries share one job of 50.
 */
async function requeuedBySweep(worker: Started): Promise<number> {
  const text = await (await fetch(`${worker.url}/metrics`)).text();
  return Number(/^webhook_sweep_requeued_total (\S+)$/m.exec(text)?.[1] ?? 0);
}

/**
 * `count` notification changes, one every FAIR_PACE_MS and a jitter: each one's commit →
 * received, sorted.
 */
async function timeChanges(
  pool: ReturnType<typeof readModelPool>,
  partner: Awaited<ReturnType<typeof startPartner>>,
  ids: number[],
): Promise<number[]> {
  const committed = new Map<string, number>();
  for (const id of ids) {
    await pool.query(`UPDATE notifications SET title = $1 WHERE id = $2`, [`fair-${id}`, id]);
    committed.set(`fair-${id}`, Date.now());
    await paced(FAIR_PACE_MS);
  }
  const started = Date.now();
  while (Date.now() - started < 120_000) {
    if ([...committed.keys()].every((marker) => partner.firstSeen.has(marker))) break;
    await sleep(100);
  }
  return [...committed]
    .map(([marker, at]) => (partner.firstSeen.get(marker) ?? Infinity) - at)
    .sort((a, b) => a - b);
}

type Pool = ReturnType<typeof readModelPool>;
type Partner = Awaited<ReturnType<typeof startPartner>>;
/** What the worker's environment is started with, and the operator services configured from. */
type Variables = Record<string, string>;

export async function benchWebhooks(
  options: LagOptions & { scale: number; events: number; profile: boolean },
) {
  // --profile: the CPU profile of the worker that delivers alone (the rate and fairness parts).
  const profileDir = options.profile ? makeTempDir('webhooks-profile-') : undefined;
  const env = await benchEnvironment('benchhooks');
  const partner = await startPartner();
  const silent = await startSilentPartner();
  const fanoutPartner = await startFanoutPartner();
  const readModel = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  let worker: Started | undefined;
  try {
    const conn = await connectLegacy(env.legacyUrl);
    await generateLegacyData(conn, { scale: options.scale, seed: 3 });
    await conn.end();
    const variables = {
      DATABASE_URL: env.databaseUrl,
      LEGACY_DATABASE_URL: env.legacyReadOnlyUrl,
      REDIS_URL: env.redisUrl,
      REDIS_PREFIX: env.redisPrefix,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // The worker opens the secrets this process seals.
      SECRETS_KEY: BENCH_SECRETS_KEY,
    };
    worker = await startWorker(variables, {});
    const pool = readModelPool(readModel);
    // The first load, then the subscription: its events are the changes after it.
    await firstLoadDone(pool);
    await sleep(5000);
    const { service, subscription } = await subscribePartner(readModel, variables, partner.url);

    await benchLatency(env.legacyUrl, readModel, partner, options);
    await worker.stop();

    // The rate: the subscription's feed gets `events` member changes at once, and a worker
    // running delivery alone turns them into events and delivers them.
    worker = await startWorker({ ...variables, WORKER_ROLES: 'webhooks' }, { profileDir });
    await sleep(2000);
    await benchRate({ pool, worker, partner, subscriptionId: subscription.id }, options.events);

    await benchFanout({ readModel, pool, variables, fanoutPartner });

    await benchFairness({ readModel, pool, partner, silentUrl: silent.url, service });
  } finally {
    await releaseInTurn(
      () => worker?.stop(),
      () => profileDir && printProfileSplit(profileDir, 'delivering worker'),
      () => profileDir && removeTempDir(profileDir),
      () => partner.close(),
      () => silent.close(),
      () => fanoutPartner.close(),
      () => readModel.$disconnect(),
      () => env.destroy(),
    );
  }
}

/** Waits until every table is loaded once. */
async function firstLoadDone(pool: Pool) {
  for (;;) {
    const { rows } = await pool.query<{ behind: number }>(
      `SELECT count(*)::int AS behind FROM sync_state WHERE synced_at IS NULL`,
    );
    if (rows[0]!.behind === 0) break;
    await sleep(500);
  }
}

/** One subscription, a partner answering at once, the worker's defaults: commit → received. */
async function benchLatency(
  legacyUrl: string,
  readModel: ReadModelClient,
  partner: Partner,
  options: LagOptions,
) {
  console.log(`latency: one subscription, a partner answering at once, the worker's defaults`);
  const lags = await measureVisibility(legacyUrl, readModel, options);
  await sleep(5000);
  const hooks = commitToReceived(lags.committedAt, partner);
  const missing = hooks.filter((ms) => ms === Infinity).length;
  console.log(
    `  legacy commit → webhook received: p50 ${percentile(hooks, 50)} ms, p99 ${percentile(hooks, 99)} ms ` +
      `(target p99 ≤ 2000)${missing ? `, ${missing} never received` : ''}; ` +
      `commit → visible in the same run: p50 ${lags.p50} ms, p99 ${lags.p99} ms`,
  );
}

/**
 * Rounds of `events` changes each: one round lasts a few seconds, so one alone is at the mercy
 * of whatever else the machine does; the median of the rounds is the figure.
 */
async function benchRate(
  on: { pool: Pool; worker: Started; partner: Partner; subscriptionId: number },
  eventsPerRound: number,
) {
  const rates: number[] = [];
  const cpuPerDelivery: number[] = [];
  for (let round = 1; round <= RATE_ROUNDS; round += 1) {
    const { delivered, seconds, cpuMs } = await rateRound(on, eventsPerRound, round);
    rates.push(delivered / seconds);
    cpuPerDelivery.push(cpuMs / delivered);
  }
  console.log(
    `rate: median of ${RATE_ROUNDS} rounds ${fmt(
      percentile(
        rates.toSorted((a, b) => a - b),
        50,
      ),
    )} deliveries/s (target ≥ 1000), ` +
      `worker CPU ${fmt(
        percentile(
          cpuPerDelivery.toSorted((a, b) => a - b),
          50,
        ),
        2,
      )} ms per delivery, dispatch from the feed included`,
  );
}

/** One round: `eventsPerRound` member changes at once, until delivered (or 300 s). */
async function rateRound(
  { pool, worker, partner, subscriptionId }: Parameters<typeof benchRate>[0],
  eventsPerRound: number,
  round: number,
) {
  const before = {
    received: partner.received(),
    cpuMs: worker.cpuMs(),
    requeued: await requeuedBySweep(worker),
  };
  const changed = await pool.query(
    `UPDATE members SET address = $2 || id
      WHERE id IN (SELECT id FROM members ORDER BY id LIMIT $1)`,
    [eventsPerRound, `rate${round}-`],
  );
  const events = changed.rowCount ?? 0;
  const started = Date.now();
  let delivered = 0;
  while (Date.now() - started < 300_000) {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_events
        WHERE subscription_id = $1 AND status = 'delivered' AND body LIKE $2`,
      [subscriptionId, `%"rate${round}-%`],
    );
    delivered = rows[0]!.n;
    if (delivered >= events) break;
    await sleep(100);
  }
  const seconds = (Date.now() - started) / 1000;
  const cpuMs = worker.cpuMs() - before.cpuMs;
  const requeued = (await requeuedBySweep(worker)) - before.requeued;
  console.log(
    `  round ${round}: ${delivered} of ${events} events (${partner.received() - before.received} requests) ` +
      `in ${fmt(seconds, 1)} s: ${fmt(delivered / seconds)} deliveries/s, worker CPU ${fmt(cpuMs / delivered, 2)} ms per delivery, ` +
      `${requeued} queued again by the sweep`,
  );
  return { delivered, seconds, cpuMs };
}

/**
 * Fan-out, on the same worker: one client's subscriptions to notifications, each at a path of
 * its own, 1 then 100 then 1,000 of them (the per-client cap raised for it).
 */
async function benchFanout({
  readModel,
  pool,
  variables,
  fanoutPartner,
}: {
  readModel: ReadModelClient;
  pool: Pool;
  variables: Variables;
  fanoutPartner: Awaited<ReturnType<typeof startFanoutPartner>>;
}) {
  const { rows: fanned } = await pool.query<{ id: number }>(
    `SELECT id FROM notifications ORDER BY id DESC LIMIT $1`,
    [FANOUT_SUBSCRIPTIONS.length * (FANOUT_CHANGES + FANOUT_BURST)],
  );
  const fanoutClient = await createClient(readModel, createClientSecrets([BENCH_SECRETS_KEY]), {
    name: 'bench fan-out partner',
    scopes: ['notifications:read', 'webhooks:manage'],
    branchId: null,
  });
  const fanoutService = createWebhookService(
    readModel,
    loadConfig({ ...variables, WEBHOOK_MAX_SUBSCRIPTIONS_PER_CLIENT: '1000' }),
  );
  // The changes are written to the read model here, not through the sync: announced as the sync
  // announces its commits, the dispatcher starts a pass at once, as it does in production, rather
  // than at the end of its interval (200 ms), which alone made one subscription's p99.
  const redis = createRedis(variables.REDIS_URL!);
  const announce = () => redis.publish(changesCommittedChannel(variables.REDIS_PREFIX!), '');
  let subscribed = 0;
  const p99s: number[] = [];
  for (const [index, subscriptions] of FANOUT_SUBSCRIPTIONS.entries()) {
    for (; subscribed < subscriptions; subscribed += 1) {
      await fanoutService.create(fanoutClient.id, {
        url: fanoutPartner.url(`/fan/${subscribed}`),
        types: ['notifications'],
        description: 'bench fan-out',
      });
    }
    await sleep(2000);
    const per = FANOUT_CHANGES + FANOUT_BURST;
    const ids = fanned.slice(index * per, (index + 1) * per).map((row) => row.id);
    const { lastDelivery, perSecond } = await timeFanout(
      pool,
      fanoutPartner,
      ids,
      subscriptions,
      announce,
    );
    p99s.push(percentile(lastDelivery, 99));
    console.log(
      `fan-out: ${subscriptions} subscription(s): commit → last subscription's delivery over ` +
        `${FANOUT_CHANGES} changes p50 ${percentile(lastDelivery, 50)} ms, p99 ` +
        `${percentile(lastDelivery, 99)} ms; ${FANOUT_BURST} changes at once: ` +
        `${fmt(perSecond)} deliveries/s`,
    );
  }

  const [one, most] = [p99s[0]!, p99s.at(-1)!];
  console.log(
    `fan-out: ${FANOUT_SUBSCRIPTIONS.at(-1)} subscriptions against 1, p99: ` +
      `${fmt(most / one, 2)}× (target ≤ 1.5), +${fmt(most - one)} ms (target ≤ 1500)`,
  );

  redis.disconnect();
  // Gone before fairness, whose changes are notifications too.
  await pool.query(`DELETE FROM webhook_subscriptions WHERE client_id = $1`, [fanoutClient.id]);
}

/**
 * Fairness, on the same worker: the partner's changes alone, then beside a client whose
 * endpoint holds every connection open without an answer.
 */
async function benchFairness({
  readModel,
  pool,
  partner,
  silentUrl,
  service,
}: {
  readModel: ReadModelClient;
  pool: Pool;
  partner: Partner;
  silentUrl: string;
  service: ReturnType<typeof createWebhookService>;
}) {
  const { rows: notifications } = await pool.query<{ id: number }>(
    `SELECT id FROM notifications ORDER BY id LIMIT $1`,
    [2 * FAIR_CHANGES],
  );
  const ids = notifications.map((row) => row.id);
  const alone = await timeChanges(pool, partner, ids.slice(0, FAIR_CHANGES));
  const silentClient = await createClient(readModel, createClientSecrets([BENCH_SECRETS_KEY]), {
    name: 'bench silent partner',
    scopes: ['members:read', 'webhooks:manage'],
    branchId: null,
  });
  await service.create(silentClient.id, {
    url: silentUrl,
    types: ['members'],
    description: 'silent',
  });
  await pool.query(
    `UPDATE members SET address = 'silent-' || id
      WHERE id IN (SELECT id FROM members ORDER BY id LIMIT $1)`,
    [SILENT_EVENTS],
  );
  await sleep(1000);
  const beside = await timeChanges(pool, partner, ids.slice(FAIR_CHANGES));
  console.log(
    `fairness: a partner's change → webhook received over ${FAIR_CHANGES} changes: alone p50 ` +
      `${percentile(alone, 50)} ms, p99 ${percentile(alone, 99)} ms; while another client's ` +
      `endpoint is silent with ${SILENT_EVENTS} events: p50 ${percentile(beside, 50)} ms, ` +
      `p99 ${percentile(beside, 99)} ms`,
  );
}
