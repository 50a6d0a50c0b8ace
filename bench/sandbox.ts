// npm run bench -- --only sandbox: what a busy sandbox client costs the live club's partners
// (docs/decisions/0024-sandbox.md). The compiled gateway, as production runs it, serves a live
// client's member detail and list reads in rounds: alone; beside a sandbox client at the default
// limits (a request a second, target ≥ 0.95 of alone); beside a sandbox client busy far past
// the default limits (a partner's integration suite: SANDBOX_READS_PER_SECOND list reads and
// SANDBOX_CHANGES_PER_SECOND simulated changes, paced); beside a live partner making the same
// reads (the peer); and beside a sandbox client far past its limits (a storm), alternated, ratios
// reported. On a machine whose gateway is saturated any partner's reads cost the others their
// share of its CPU, the sandbox's too: the target is that the sandbox costs no more than the
// peer, busy / peer ≥ 0.95. Then the generated club's size in its two databases.
import pg from 'pg';
import * as mariadb from 'mariadb';
import { SCOPES } from '#api/scopes.js';
import { createReadModelClient } from '#common/databases.js';
import { legacyConnectionOf } from '#common/legacy-database.js';
import { migrateReadModel } from '#prisma/read-model/migrate.js';
import { createClient } from '../gateway/src/features/clients/clients.repository.js';
import { createClientSecrets } from '../gateway/src/trust/client-secrets.js';
import { prepareSandbox } from '../scripts/legacy/sandbox-club.js';
import { benchEnvironment, releaseInTurn } from './cleanup.js';
import { applyLoad, type LoadRequest, type LoadResult } from './gateway/load.js';
import { BENCH_SECRETS_KEY, startGateway, startWorker, type Started } from './gateway/processes.js';
import { createBenchClient, issueToken, seedMembers } from './gateway/seed.js';

export interface SandboxBenchOptions {
  seconds: number;
  rounds: number;
  members: number;
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** Waits until the worker has loaded the sandbox's club into its read model. */
async function sandboxLoaded(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let tries = 0; tries < 240; tries++) {
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM sync_state WHERE synced_at IS NOT NULL',
      );
      const [{ m }] = (await client.query<{ m: number }>('SELECT count(*)::int AS m FROM members'))
        .rows as [{ m: number }];
      if ((rows[0]?.n ?? 0) >= 10 && m > 0) return m;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error('the worker did not load the sandbox within 2 minutes');
  } finally {
    await client.end();
  }
}

/** The generated club's size: its read model and its dashboard database, in MB. */
async function clubSizeMb(readModelUrl: string, legacyUrl: string) {
  const client = new pg.Client({ connectionString: readModelUrl });
  await client.connect();
  const { rows } = await client.query<{ bytes: string }>(
    'SELECT pg_database_size(current_database())::text AS bytes',
  );
  await client.end();
  const conn = await mariadb.createConnection(legacyConnectionOf(legacyUrl));
  const [sum] = await conn.query<{ bytes: string | null }[]>(
    `SELECT SUM(data_length + index_length) AS bytes FROM information_schema.tables
      WHERE table_schema = DATABASE()`,
  );
  await conn.end();
  return {
    readModel: Number(rows[0]!.bytes) / 1e6,
    dashboard: Number(sum?.bytes ?? 0) / 1e6,
  };
}

const SANDBOX_READS_PER_SECOND = 50;
const SANDBOX_CHANGES_PER_SECOND = 2;

/**
 * A paced load from this process, beside the measured one: a few requests a second need no load
 * generator of their own. Resolves with the answers by status once `seconds` have passed.
 */
async function paced(
  requests: { perSecond: number; send: () => Promise<Response> }[],
  seconds: number,
): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  const sent: Promise<void>[] = [];
  const timers = requests.map(({ perSecond, send }) =>
    setInterval(() => {
      sent.push(
        send().then(
          async (response) => {
            await response.arrayBuffer();
            statuses[response.status] = (statuses[response.status] ?? 0) + 1;
          },
          () => {
            statuses[0] = (statuses[0] ?? 0) + 1;
          },
        ),
      );
    }, 1000 / perSecond),
  );
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  for (const timer of timers) clearInterval(timer);
  await Promise.all(sent);
  return statuses;
}

const read = (gateway: Started, token: string, path: string, seconds: number): LoadRequest => ({
  url: `${gateway.url}/api/v1${path}`,
  method: 'GET',
  headers: { authorization: `Bearer ${token}` },
  connections: 10,
  seconds,
});

export async function benchSandbox(options: SandboxBenchOptions): Promise<void> {
  const env = await benchEnvironment('bench');
  const config = env.config({ SANDBOX: 'on' });
  const db = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  const processes: Started[] = [];
  try {
    console.log(await prepareSandbox(config, migrateReadModel));
    await seedMembers(env.databaseUrl, options.members);
    const variables = {
      DATABASE_URL: env.databaseUrl,
      LEGACY_DATABASE_URL: env.legacyUrl,
      REDIS_URL: env.redisUrl,
      REDIS_PREFIX: env.redisPrefix,
      SANDBOX: 'on',
      SANDBOX_LEGACY_DATABASE_URL: config.sandbox.legacyUrl,
    };
    // The worker loads the sandbox's club, then goes: the rounds measure the gateway alone.
    const worker = await startWorker({ ...variables, WORKER_ROLES: 'sync' }, {});
    const members = await sandboxLoaded(config.sandbox.dbUrl);
    await worker.stop();
    console.log(`sandbox club loaded: ${members} members`);
    const gateway = await startGateway(variables, { built: true });
    processes.push(gateway);
    const live = await createBenchClient(db);
    const sandbox = await createClient(db, createClientSecrets([BENCH_SECRETS_KEY]), {
      name: 'bench-sandbox',
      scopes: [...SCOPES],
      branchId: null,
      club: 'sandbox',
      limits: { minute: 100_000, hour: 1_000_000, day: 10_000_000 },
    });
    // A partner's suite at the default limits (RATE_LIMIT_PER_MINUTE, 60): what a sandbox client
    // not given more costs.
    const limited = await createClient(db, createClientSecrets([BENCH_SECRETS_KEY]), {
      name: 'bench-sandbox-limited',
      scopes: [...SCOPES],
      branchId: null,
      club: 'sandbox',
    });
    // A storm's client keeps the default limits: far past them, most of its requests are 429.
    const storm = await createClient(db, createClientSecrets([BENCH_SECRETS_KEY]), {
      name: 'bench-sandbox-storm',
      scopes: [...SCOPES],
      branchId: null,
      club: 'sandbox',
    });
    const liveToken = await issueToken(gateway, live.client_key, live.client_secret);
    const sandboxToken = await issueToken(gateway, sandbox.client_key, sandbox.client_secret);
    const stormToken = await issueToken(gateway, storm.client_key, storm.client_secret);
    const limitedToken = await issueToken(gateway, limited.client_key, limited.client_secret);
    const measured = { detail: '/members/1', list: '/members?limit=50' } as const;
    const peer = await createBenchClient(db);
    const peerToken = await issueToken(gateway, peer.client_key, peer.client_secret);
    type Mode = 'alone' | 'limits' | 'busy' | 'peer' | 'storm';
    const results: Record<string, Record<Mode, LoadResult[]>> = {
      detail: { alone: [], limits: [], busy: [], peer: [], storm: [] },
      list: { alone: [], limits: [], busy: [], peer: [], storm: [] },
    };
    const api = `${gateway.url}/api/v1`;
    const readsOf = (token: string, perSecond = SANDBOX_READS_PER_SECOND) => ({
      perSecond,
      send: () =>
        fetch(`${api}/members?limit=50`, { headers: { authorization: `Bearer ${token}` } }),
    });
    const peerFor = async (seconds: number) =>
      `live peer ${JSON.stringify(await paced([readsOf(peerToken)], seconds))}`;
    const changesOf = (token: string, perSecond = SANDBOX_CHANGES_PER_SECOND) => ({
      perSecond,
      send: () =>
        fetch(`${api}/sandbox/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: '{"type":"members"}',
        }),
    });
    const busyFor = async (seconds: number) =>
      JSON.stringify(await paced([readsOf(sandboxToken), changesOf(sandboxToken)], seconds));
    // A request a second, a fifth of them changes: the default 60 a minute.
    const limitsFor = async (seconds: number) =>
      `at the default limits ${JSON.stringify(await paced([readsOf(limitedToken, 0.8), changesOf(limitedToken, 0.2)], seconds))}`;
    const stormFor = async (seconds: number) => {
      const storming = await applyLoad(read(gateway, stormToken, '/members?limit=50', seconds));
      return `${fmt(storming.requestsPerSecond)} req/s, ${storming.failures} refused`;
    };
    const beside: Record<Mode, ((seconds: number) => Promise<string>) | undefined> = {
      alone: undefined,
      limits: limitsFor,
      busy: busyFor,
      peer: peerFor,
      storm: stormFor,
    };
    for (const [name, path] of Object.entries(measured)) {
      await applyLoad(read(gateway, liveToken, path, options.seconds)); // warm-up
      for (let round = 0; round < options.rounds; round++) {
        const modes: Mode[] = ['alone', 'limits', 'busy', 'peer', 'storm'];
        for (const mode of round % 2 === 0 ? modes : modes.reverse()) {
          const besideRun = beside[mode]?.(options.seconds + 1);
          const result = await applyLoad(read(gateway, liveToken, path, options.seconds));
          const note = await besideRun;
          results[name]![mode].push(result);
          console.log(
            `round ${round + 1} live ${name.padEnd(6)} ${mode.padEnd(5)} ${fmt(result.requestsPerSecond).padStart(6)} req/s  p99 ${fmt(result.p99Ms, 2)} ms${note ? `  (sandbox beside: ${note})` : ''}`,
          );
        }
      }
    }
    console.log('');
    for (const [name, runs] of Object.entries(results)) {
      const rate = (mode: Mode) => mean(runs[mode].map((r) => r.requestsPerSecond));
      const p99 = (mode: Mode) => mean(runs[mode].map((r) => r.p99Ms));
      const fair = rate('busy') / rate('peer');
      const limited = rate('limits') / rate('alone');
      console.log(
        `live ${name}: sandbox at the default limits / alone req/s ${fmt(limited, 2)} (p99 ${fmt(p99('limits') / p99('alone'), 2)}), target ≥ 0.95: ${limited >= 0.95 ? 'met' : 'not met'}; ` +
          `busy sandbox / alone ${fmt(rate('busy') / rate('alone'), 2)} (p99 ${fmt(p99('busy') / p99('alone'), 2)}), ` +
          `live peer / alone ${fmt(rate('peer') / rate('alone'), 2)}, storm / alone ${fmt(rate('storm') / rate('alone'), 2)}; ` +
          `busy sandbox / live peer ${fmt(fair, 2)}, target ≥ 0.95: ${fair >= 0.95 ? 'met' : 'not met'}`,
      );
    }
    const size = await clubSizeMb(config.sandbox.dbUrl, config.sandbox.legacyUrl);
    const total = size.readModel + size.dashboard;
    console.log(
      `generated club: read model ${fmt(size.readModel, 1)} MB + dashboard ${fmt(size.dashboard, 1)} MB = ${fmt(total, 1)} MB; target ≤ 50 MB: ${total <= 50 ? 'met' : 'not met'}`,
    );
  } finally {
    await releaseInTurn(
      () => Promise.all(processes.map((p) => p.stop())),
      () => db.$disconnect(),
      () => env.destroy(),
    );
  }
}
