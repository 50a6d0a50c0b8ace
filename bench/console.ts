// npm run bench -- --only console [--seconds S] [--rounds R] [--members N]
// The operator console at scale: `members` members and 30 days of hourly usage for 100 clients
// (four operation and status cells an hour each), the console's usage page (30 days, by client)
// and clients page from the load generator's own process (load.ts): as one operator loads them
// (one connection: the time a page takes, against decision 0019's target of 100 ms p95), and as
// four operators at once would (four connections, on the same two cores as the database); then
// the members detail and search on a gateway with the console and one with CONSOLE=off, in
// alternating rounds, and the ratio of their requests/s.
import { once } from 'node:events';
import { createReadModelClient } from '#common/databases.js';
import { createRedis } from '#common/redis.js';
import { createSignInLink } from '../gateway/src/pages/sign-in-links.js';
import { benchEnvironment, releaseInTurn } from './cleanup.js';
import { ENDPOINTS } from './gateway/endpoints.js';
import { requestOf } from './gateway/index.js';
import { applyLoad, loadGenerator, type LoadResult } from './gateway/load.js';
import { BENCH_SECRETS_KEY, startGateway, type Started } from './gateway/processes.js';
import { createBenchClient, issueToken, seedMembers } from './gateway/seed.js';

export interface ConsoleBenchOptions {
  seconds: number;
  rounds: number;
  members: number;
}

const CLIENTS = 100;
const DAYS = 30;
const TARGET_P95_MS = 100;
/** Production's cookie is Secure: the gateway trusts this host's proxy header to say HTTPS. */
const HTTPS = { 'x-forwarded-proto': 'https' };

/** 100 clients, and every hour of the last 30 days of each: two operations, two statuses. */
async function seedUsage(db: ReturnType<typeof createReadModelClient>) {
  const ids: number[] = [];
  for (let i = 0; i < CLIENTS; i++) ids.push((await createBenchClient(db)).id);
  await db.$executeRaw`
    INSERT INTO usage_hours (hour, client_id, operation, status, requests, bytes_out, ms_le_10, ms_le_50)
    SELECT h, c, op, st, 50 + (c % 7) * 10, 40000, 40, 10
    FROM generate_series(date_trunc('hour', now()) - interval '30 days', date_trunc('hour', now()),
                         interval '1 hour') AS h,
         unnest(${ids}::int[]) AS c,
         unnest(ARRAY['GET /api/v1/members', 'GET /api/v1/members/{id}']) AS op,
         unnest(ARRAY[200, 404]) AS st`;
  return db.usageHour.count();
}

/** Signs in with a link as a browser would: the confirm page, then its button's POST. */
async function consoleCookie(gateway: Started, env: { redisUrl: string; redisPrefix: string }) {
  const redis = createRedis(env.redisUrl);
  // The client has no offline queue: nothing is sent before it is connected.
  if (redis.status !== 'ready') await once(redis, 'ready');
  try {
    const token = await createSignInLink(
      redis,
      { prefix: env.redisPrefix, secretsKeys: [BENCH_SECRETS_KEY] },
      { name: 'bench' },
      60_000,
    );
    const path = `${gateway.url}/console/sign-in/${token}`;
    const opened = await fetch(path, { headers: HTTPS });
    const cookie = opened.headers.getSetCookie()[0]!.split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await opened.text())![1]!;
    const signedIn = await fetch(path, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        ...HTTPS,
        cookie,
        origin: gateway.url,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ _csrf: csrf }),
    });
    if (signedIn.status !== 303) throw new Error(`console sign-in answered ${signedIn.status}`);
    return signedIn.headers.getSetCookie()[0]!.split(';')[0]!;
  } finally {
    redis.disconnect();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const fmt = (n: number, digits = 0) => n.toFixed(digits);

/** One operator, the target's case; four at once, what the pages cost beside each other. */
const OPERATORS = [1, 4];

async function pages(gateway: Started, cookie: string, options: ConsoleBenchOptions) {
  for (const [path, connections] of [
    '/console/usage?granularity=day&by=client',
    '/console/clients',
  ].flatMap((p) => OPERATORS.map((n) => [p, n] as const))) {
    const load = {
      url: `${gateway.url}${path}`,
      method: 'GET' as const,
      headers: { ...HTTPS, cookie },
      connections,
      seconds: options.seconds,
    };
    await applyLoad(load);
    const rounds: LoadResult[] = [];
    for (let round = 0; round < options.rounds; round++) rounds.push(await applyLoad(load));
    const p95 = median(rounds.map((r) => r.p95Ms ?? r.p99Ms));
    const failures = rounds.reduce((n, r) => n + r.failures, 0);
    const target =
      connections === 1
        ? ` (target < ${TARGET_P95_MS} ms: ${p95 < TARGET_P95_MS ? 'met' : 'MISSED'})`
        : '';
    console.log(
      `GET ${path}, ${connections} operator${connections === 1 ? '' : 's'}: ` +
        `${fmt(mean(rounds.map((r) => r.requestsPerSecond)))} req/s, ` +
        `p50 ${fmt(median(rounds.map((r) => r.p50Ms)), 2)} ms, ` +
        `p95 ${fmt(p95, 2)} ms${loadGenerator === 'wrk' ? '' : ' (p99: autocannon has no p95)'}` +
        target +
        (failures ? `; !! ${failures} failed requests` : ''),
    );
  }
}

/** Members detail and search on the console's gateway and on one without, alternating. */
async function consoleOnOff(
  on: Started,
  off: Started,
  who: Parameters<typeof requestOf>[2],
  options: ConsoleBenchOptions,
) {
  for (const endpoint of ENDPOINTS.filter((e) =>
    ['members detail', 'members search'].includes(e.name),
  )) {
    const results: Record<'on' | 'off', LoadResult[]> = { on: [], off: [] };
    // A warm-up round each, as the gateway benchmark does.
    for (const server of [on, off])
      await applyLoad(requestOf(endpoint, server, who, options.seconds));
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      for (const name of order)
        results[name].push(
          await applyLoad(requestOf(endpoint, name === 'on' ? on : off, who, options.seconds)),
        );
    }
    const rps = (name: 'on' | 'off') => results[name].map((r) => r.requestsPerSecond);
    const ratios = results.on.map(
      (r, i) => r.requestsPerSecond / results.off[i]!.requestsPerSecond,
    );
    console.log(
      `${endpoint.name}: console on ${fmt(mean(rps('on')))} req/s (p99 ${fmt(median(results.on.map((r) => r.p99Ms)), 2)} ms), ` +
        `off ${fmt(mean(rps('off')))} req/s (p99 ${fmt(median(results.off.map((r) => r.p99Ms)), 2)} ms); ` +
        `on / off ${fmt(mean(rps('on')) / mean(rps('off')), 3)} (rounds ${fmt(Math.min(...ratios), 3)}–${fmt(Math.max(...ratios), 3)})`,
    );
  }
}

export async function benchConsole(options: ConsoleBenchOptions): Promise<void> {
  const env = await benchEnvironment('bench-console');
  const db = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  const servers: Started[] = [];
  try {
    console.log(`seeding ${options.members} members; load generator: ${loadGenerator}`);
    await seedMembers(env.databaseUrl, options.members);
    console.log(
      `usage: ${await seedUsage(db)} hourly rows for ${CLIENTS} clients over ${DAYS} days`,
    );
    const client = await createBenchClient(db);
    const gatewayEnv = {
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      REDIS_PREFIX: env.redisPrefix,
      TRUST_PROXY: 'loopback',
    };
    const on = await startGateway(gatewayEnv, {});
    servers.push(on);
    const off = await startGateway({ ...gatewayEnv, CONSOLE: 'off' }, { built: true });
    servers.push(off);
    await pages(on, await consoleCookie(on, env), options);
    const token = await issueToken(on, client.client_key, client.client_secret);
    await consoleOnOff(on, off, { ...client, token }, options);
  } finally {
    await releaseInTurn(
      () => Promise.all(servers.map((s) => s.stop())),
      () => db.$disconnect(),
      () => env.destroy(),
    );
  }
}
