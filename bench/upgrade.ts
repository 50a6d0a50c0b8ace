// npm run bench -- --only upgrade --from REF [--step-seconds S]
// A rolling upgrade under partner load, as docs/decisions/0021-rolling-upgrades.md describes it:
// REF (a commit, tag or branch: the release in production) is checked out into a temporary
// directory (`git worktree add`), its dependencies installed there (`npm ci`, or this checkout's
// node_modules when both package-lock.json files are equal) and built. On a throwaway environment
// its migrations run, then its worker and two gateways, compiled and started as production starts
// them. Partners load both gateways in turn: readers, a member writer (each answer recorded), two
// change-feed followers keeping a copy, and a webhook subscription delivered to a real receiver.
// Under that load this checkout's migrations run (`npm run db:migrate`), then the processes are
// replaced one at a time: gateway 1 and gateway 2 (stopped by SIGTERM, which drains them, and
// started again from this checkout on the same port), then the worker (this checkout's started
// beside the old one, which is then stopped). The partners' client does what a load balancer in
// front of the gateways does: round robin, and a request that reaches no gateway (connection
// refused or reset while one is replaced) goes to the other (bench/soak/partner.ts); member writes
// carry an Idempotency-Key, so such a retry is safe. Every step lasts S seconds (20). Then the load
// stops, the read model and the deliveries catch up, and the checks: no answer 5xx or 401 and none
// missing; every member write answered 2xx is in the legacy tables and the read model; the
// receiver got a webhook for each; the subscription's ledger balances with every event delivered
// and received; each follower's copy equals the lists; `npm run sync:verify` finds 0 differences.
// Exits 1 when any check fails.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { SCOPES } from '#api/scopes.js';
import { createReadModelClient, readModelPool } from '#common/databases.js';
import { deliveryFigures } from '../gateway/src/features/webhooks/webhooks.figures.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import { connectLegacy } from '../scripts/legacy/legacy-database.js';
import type { ThrowawayEnvironment } from '../scripts/throwaway-environment.js';
import {
  benchEnvironment,
  makeTempDir,
  onInterrupt,
  releaseInTurn,
  removeTempDir,
} from './cleanup.js';
import {
  BENCH_SECRETS_KEY,
  buildIfStale,
  startGateway,
  startWorker,
  type Started,
} from './gateway/processes.js';
import { verifySettled, webhookLedgers, type Ledger } from './soak/checks.js';
import { Follower } from './soak/feed-follower.js';
import type { CopyComparison, Credentials } from './soak/messages.js';
import { failovers, Partner, refusedHeld, samples, type Answer } from './soak/partner.js';
import { startReceiver, type Receiver } from './soak/receivers.js';
import { generateDashboard } from './soak/setup.js';

export interface UpgradeOptions {
  from: string;
  stepSeconds: number;
}

const run = promisify(execFile);
const READERS = 2;
const READ_EVERY_MS = 100;
const WRITE_EVERY_MS = 200;
/** Twice within the access token's minute (variables()), so pairs issued by one release are
 * refreshed and used on the other. */
const TOKEN_EVERY_SECONDS = 30;
/** How long the deliveries and the read model may take to catch up once the load stops. */
const SETTLE_MS = 120_000;
const BOUND_BRANCH = 1;

/** What the run holds, released at the end whatever happened. */
interface Held {
  dir: string;
  release?: string;
  env?: ThrowawayEnvironment;
  gateways: Started[];
  workers: Started[];
  receiver?: Receiver;
}

/** A member write and its answer: `marker` is the email (update) or phone (create) it wrote. */
interface Write {
  method: 'POST' | 'PUT';
  id: number | null;
  marker: string;
  status: number;
}

const git = async (...args: string[]) => (await run('git', args)).stdout.trim();

/**
 * REF checked out into `tree` and built as `npm ci` builds it (its postinstall generates the
 * Prisma clients and compiles to dist/). With a package-lock.json equal to this checkout's, this
 * checkout's node_modules serve, and only the generate and build steps run: minutes saved.
 */
async function checkOutRelease(ref: string, tree: string): Promise<void> {
  await git('worktree', 'add', '--detach', tree, ref);
  const sameLock = readFileSync('package-lock.json').equals(
    readFileSync(path.join(tree, 'package-lock.json')),
  );
  const started = Date.now();
  const inTree = { cwd: tree, maxBuffer: 64 * 1024 * 1024 };
  if (sameLock) {
    symlinkSync(realpathSync('node_modules'), path.join(tree, 'node_modules'));
    await run(process.execPath, ['--import', 'tsx', 'scripts/prisma-generate.ts'], inTree);
    await run(process.execPath, ['scripts/build.mjs'], inTree);
  } else {
    await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], inTree);
  }
  const how = sameLock
    ? "package-lock.json equal to this checkout's: its node_modules, then prisma generate and the build"
    : 'package-lock.json differs: npm ci (its postinstall generates and builds)';
  console.log(`release installed and built in ${seconds(Date.now() - started)} s (${how})`);
}

/** The release's worktree and its entry in the repository's list, gone. */
async function removeRelease(tree: string): Promise<void> {
  if (existsSync(tree)) await git('worktree', 'remove', '--force', tree);
}

const seconds = (ms: number) => (ms / 1000).toFixed(0);

/** What every process of either release runs with; `legacyUrl` is its own MySQL user's. */
function variables(env: ThrowawayEnvironment, legacyUrl: string): Record<string, string> {
  return {
    DATABASE_URL: env.databaseUrl,
    LEGACY_DATABASE_URL: legacyUrl,
    REDIS_URL: env.redisUrl,
    REDIS_PREFIX: env.redisPrefix,
    SECRETS_KEY: BENCH_SECRETS_KEY,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    ACCESS_TOKEN_TTL_SECONDS: '60',
  };
}

/** `node <script>` in the checkout at `cwd` with `env`: its output. */
async function node(cwd: string, script: string, env: Record<string, string>, args: string[] = []) {
  const { stdout, stderr } = await run(process.execPath, [script, ...args], {
    cwd,
    env: { ...process.env, ...env },
  });
  return (stdout + stderr).trimEnd();
}

/** A client made by the release's own CLI (`npm run clients -- create`), allowed everything. */
async function releaseClient(
  release: string,
  env: Record<string, string>,
  bound: boolean,
): Promise<Credentials> {
  const branch = bound ? ['--branch', String(BOUND_BRANCH)] : [];
  const out = await node(release, 'dist/gateway/src/features/clients/clients.cli.js', env, [
    'create',
    ...[
      '--name',
      'upgrade',
      '--scopes',
      SCOPES.join(','),
      '--limits',
      '1000000/100000000/1000000000',
    ],
    ...branch,
    '--json',
  ]);
  const created = JSON.parse(out) as { client_key: string; client_secret: string };
  return { key: created.client_key, secret: created.client_secret, bound };
}

/** Until the worker's first load of every table is done. */
async function waitUntilLoaded(databaseUrl: string): Promise<void> {
  const readModel = createReadModelClient(databaseUrl, { poolSize: 1 });
  try {
    for (const deadline = Date.now() + 300_000; Date.now() < deadline; await sleep(500)) {
      const { rows } = await readModelPool(readModel).query<{ loaded: number }>(
        'SELECT count(synced_at)::int AS loaded FROM sync_state',
      );
      if (rows[0]!.loaded >= SYNC_TABLES.length) return;
    }
    throw new Error('the first load did not end within 5 minutes');
  } finally {
    await readModel.$disconnect();
  }
}

/** `task` every `everyMs` until `until()`, each on its own tick; then every one has answered. */
async function paced(everyMs: number, until: () => boolean, task: (n: number) => Promise<unknown>) {
  const running: Promise<unknown>[] = [];
  for (let n = 0; !until(); n++) {
    running.push(task(n));
    await sleep(everyMs);
  }
  await Promise.all(running);
}

/** The partners' load over every gateway in turn, until `stopped()`. */
function startLoad(
  gateways: string[],
  clients: { readers: Credentials[]; writer: Credentials; followers: Credentials[] },
  dashboard: Awaited<ReturnType<typeof generateDashboard>>,
  stopped: () => boolean,
) {
  const writes: Write[] = [];
  const tag = randomBytes(3).toString('hex');
  const member = (n: number) => dashboard.memberIds[n % dashboard.memberIds.length]!;
  const reads = (n: number) => [
    '/members?limit=20',
    `/members/${member(n * 7919)}`,
    '/branches',
    '/packages',
    '/financial/transactions?limit=20',
    '/dashboard/stats',
    '/webhooks',
  ];
  const read = async (who: Credentials, i: number) => {
    const partner = new Partner(who, gateways);
    await partner.renew();
    const renewing = partner.keepRenewing(TOKEN_EVERY_SECONDS, stopped, (i + 1) / 4);
    await paced(READ_EVERY_MS, stopped, (n) => partner.get('reads', reads(n)[n % 7]!));
    await renewing;
  };
  // One create in ten; an update otherwise, each of another member, so that every write has its
  // own marker, in its own row and its own webhook event.
  const write = async () => {
    const partner = new Partner(clients.writer, gateways);
    await partner.renew();
    const renewing = partner.keepRenewing(TOKEN_EVERY_SECONDS, stopped, 0.5);
    const phoneBase = Math.floor(Math.random() * 9_000_000);
    await paced(WRITE_EVERY_MS, stopped, async (n) => {
      const key = { 'idempotency-key': `upgrade-${tag}-${n}` };
      const create = n % 10 === 0;
      // 0529: outside the generator's 0530–0599, so never a duplicate.
      const marker = create
        ? `0529${String((phoneBase + n) % 10_000_000).padStart(7, '0')}`
        : `upgrade-${tag}-${n}@example.com`;
      const answer: Answer = create
        ? await partner.send(
            'POST',
            '/members',
            { full_name: 'Upgrade API', phone: marker, branch_id: dashboard.branchIds[0] },
            'writes',
            key,
          )
        : await partner.send('PUT', `/members/${member(n)}`, { email: marker }, 'writes', key);
      const id = create
        ? ((answer.body?.data as { id?: number } | undefined)?.id ?? null)
        : member(n);
      writes.push({ method: create ? 'POST' : 'PUT', id, marker, status: answer.status });
    });
    await renewing;
  };
  const followers = clients.followers.map(
    (who, j) => new Follower(who, gateways, TOKEN_EVERY_SECONDS, (j + 2) / 4),
  );
  const running = [
    ...clients.readers.map(read),
    write(),
    ...followers.map((f) => f.follow(stopped)),
  ];
  return { writes, followers, done: () => Promise.all(running) };
}

/** Every write answered 2xx as it is in `rows` (id → email and phone): those that are not. */
function missingWrites(
  writes: Write[],
  rows: { id: number; email: string | null; phone: string }[],
) {
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  return writes.filter((w) => {
    const row = w.id === null ? undefined : byId.get(w.id);
    return !row || (w.method === 'POST' ? row.phone !== w.marker : row.email !== w.marker);
  });
}

/** The checks once the load has stopped; each printed; whether all passed. */
async function check(
  env: ThrowawayEnvironment,
  subscription: number,
  receiver: Receiver,
  bodies: string[],
  writes: Write[],
  comparisons: CopyComparison[],
  steps: { at: number; what: string }[],
): Promise<boolean> {
  // Answers neither 2xx nor 4xx-by-design, by the step they came in: where a failure was.
  for (const [i, step] of steps.entries()) {
    const end = steps[i + 1]?.at ?? Infinity;
    const bad = samples.filter(([at, , , s]) => at >= step.at && at < end && (s === 0 || s >= 400));
    const counts = new Map<string, number>();
    for (const [, group, , s] of bad)
      counts.set(`${group} ${s}`, (counts.get(`${group} ${s}`) ?? 0) + 1);
    if (counts.size)
      console.log(
        `  during "${step.what.trim()}": ${[...counts].map(([k, v]) => `${k} ×${v}`).join(', ')}`,
      );
  }
  const statuses = new Map<string, number>();
  for (const [, group, , status] of samples) {
    const key = `${group} ${status}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  }
  const serverErrors = samples.filter(([, , , s]) => s >= 500).length;
  // A token one release handed out and another refused (decision 0003, rolling upgrades); a 401
  // to a pair its refresh had just replaced is that rotation meeting a request in flight.
  const refused = refusedHeld;
  const unanswered = samples.filter(([, , , s]) => s === 0).length;
  console.log(
    `answers: ${samples.length}, by group and status: ${[...statuses].map(([k, v]) => `${k} ×${v}`).join(', ')}; ` +
      `${failovers} requests reached no gateway (refused or reset during a replacement) and went to the other`,
  );

  const written = writes.filter((w) => w.status >= 200 && w.status < 300);
  const ids = written.map((w) => w.id ?? 0);
  const legacy = await connectLegacy(env.legacyUrl);
  const legacyRows = await legacy
    .query<{ id: number; email: string | null; phone: string }[]>(
      'SELECT id, email, phone FROM members WHERE id IN (?)',
      [ids.length ? ids : [0]],
    )
    .finally(() => legacy.end());
  const readModel = createReadModelClient(env.databaseUrl, { poolSize: 1 });
  try {
    const { rows } = await readModelPool(readModel).query<{
      id: number;
      email: string | null;
      phone: string;
    }>('SELECT id, email, phone FROM members WHERE id = ANY($1::int[])', [ids]);
    const lostLegacy = missingWrites(written, legacyRows);
    const lostReadModel = missingWrites(written, rows);
    console.log(
      `member writes: ${writes.length} sent, ${written.length} answered 2xx ` +
        `(${written.filter((w) => w.method === 'POST').length} creates); not in the legacy tables: ` +
        `${lostLegacy.length}; not in the read model: ${lostReadModel.length}`,
    );
    // Deliveries catch up: every write's event received, none pending.
    const unreceived = () => written.filter((w) => !bodies.some((b) => b.includes(w.marker)));
    for (const deadline = Date.now() + SETTLE_MS; Date.now() < deadline; await sleep(1000)) {
      const { events } = await deliveryFigures(readModel, subscription);
      if (unreceived().length === 0 && events.pending === 0) break;
    }
    const [ledger] = await webhookLedgers(readModel, (id) => deliveryFigures(readModel, id), [
      { id: subscription, receiver },
    ]);
    console.log(
      `webhooks: ${written.length - unreceived().length} of the ${written.length} writes' events received`,
    );
    for (const c of comparisons)
      console.log(
        `feed copy (${c.follower}): ${c.copied} copied, ${c.listed} listed, ${c.missing} missing, ` +
          `${c.extra} extra, ${c.different} different${c.examples.length ? ` (${c.examples.join(', ')})` : ''}`,
      );
    const differences = await verifySettled(
      { DATABASE_URL: env.databaseUrl, LEGACY_DATABASE_URL: env.legacyReadOnlyUrl },
      SETTLE_MS,
    );
    const ledgerOk = (l: Ledger | undefined) =>
      !!l && l.balanced && l.deliveredUnreceived === 0 && l.undelivered === 0;
    const verdicts: [string, boolean][] = [
      [`0 answers 5xx (${serverErrors})`, serverErrors === 0],
      [`0 requests unanswered by every gateway (${unanswered})`, unanswered === 0],
      [
        `0 answers 401 to a pair still held: each release takes the other's tokens (${refused})`,
        refused === 0,
      ],
      [
        `0 lost writes (${lostLegacy.length} legacy, ${lostReadModel.length} read model)`,
        lostLegacy.length + lostReadModel.length === 0,
      ],
      [`0 writes' webhook events lost (${unreceived().length})`, unreceived().length === 0],
      ['webhook ledger balanced, every event delivered and received', ledgerOk(ledger)],
      [
        'feed copies equal to the lists',
        comparisons.every((c) => c.missing + c.extra + c.different === 0),
      ],
      [`sync:verify 0 differences (${differences})`, differences === 0],
    ];
    console.log('\nverdict:');
    for (const [what, ok] of verdicts) console.log(`  ${ok ? 'PASS' : 'FAIL'}  ${what}`);
    return verdicts.every(([, ok]) => ok);
  } finally {
    await readModel.$disconnect();
  }
}

async function upgrade(held: Held, options: UpgradeOptions): Promise<boolean> {
  const step = () => sleep(options.stepSeconds * 1000);
  let started = Date.now();
  /** When each step began, for the refusals by step. */
  const steps: { at: number; what: string }[] = [];
  const say = (what: string) => {
    steps.push({ at: Date.now(), what: what.split(/[:(]/)[0]! });
    console.log(`[${seconds(Date.now() - started).padStart(4)} s] ${what}`);
  };
  buildIfStale();
  const here = await git('log', '-1', '--format=%h %cs %s');
  const from = await git('log', '-1', '--format=%h %cs %s', options.from);
  console.log(`from ${from}\nto   ${here} (this checkout)`);
  const release = (held.release = path.join(held.dir, 'release'));
  onInterrupt(() => removeRelease(release));
  await checkOutRelease(options.from, release);
  const env = (held.env = await benchEnvironment('benchupgrade', undefined, { unmigrated: true }));
  const gatewayVariables = variables(env, env.legacyGatewayUrl);
  const workerVariables = variables(env, env.legacyReadOnlyUrl);
  console.log(
    `release's migrations:\n${(await node(release, 'dist/prisma/read-model/migrate.js', gatewayVariables)).replace(/^/gm, '  ')}`,
  );
  const dashboard = await generateDashboard(env.legacyUrl);
  held.workers.push(await startWorker(workerVariables, { built: true, cwd: release }));
  await waitUntilLoaded(env.databaseUrl);
  for (let i = 0; i < 2; i++)
    held.gateways.push(await startGateway(gatewayVariables, { built: true, cwd: release }));
  const gateways = held.gateways.map((g) => g.url);
  const clients = {
    readers: await Promise.all(
      Array.from({ length: READERS }, () => releaseClient(release, gatewayVariables, false)),
    ),
    writer: await releaseClient(release, gatewayVariables, false),
    followers: [
      await releaseClient(release, gatewayVariables, false),
      await releaseClient(release, gatewayVariables, true),
    ],
  };
  const bodies: string[] = [];
  const receiver = (held.receiver = await startReceiver(0, (body) => bodies.push(body)));
  // The subscription, made through the release's API by the writer: every type it may read.
  const owner = new Partner(clients.writer, gateways);
  await owner.renew();
  const created = await owner.send('POST', '/webhooks', { url: receiver.url }, 'webhooks');
  const subscription = (created.body?.data as { id?: number } | undefined)?.id;
  if (created.status !== 201 || subscription === undefined)
    throw new Error(`creating the subscription answered ${created.status}`);
  console.log(
    `${dashboard.memberIds.length} members; ${READERS} readers at ${1000 / READ_EVERY_MS}/s, ` +
      `${1000 / WRITE_EVERY_MS} member writes/s, 2 feed followers (one bound to a branch), ` +
      `1 webhook subscription; ${options.stepSeconds} s a step`,
  );

  let stopped = false;
  started = Date.now();
  const load = startLoad(gateways, clients, dashboard, () => stopped);
  say('load on the release: its 2 gateways and its worker');
  await step();
  say(`this checkout's migrations (npm run db:migrate), under load:`);
  console.log(
    (await node('.', 'dist/prisma/read-model/migrate.js', gatewayVariables)).replace(/^/gm, '  '),
  );
  say('migrated: the release runs on the new schema');
  await step();
  for (const [i, old] of held.gateways.entries()) {
    const port = Number(new URL(old.url).port);
    const stopping = Date.now();
    await old.stop();
    const starting = Date.now();
    held.gateways[i] = await startGateway(gatewayVariables, { built: true, port });
    say(
      `gateway ${i + 1} replaced: the release's stopped by SIGTERM (drained in ${seconds(starting - stopping)} s), ` +
        `this checkout's answering on port ${port} ${seconds(Date.now() - starting)} s later`,
    );
    await step();
  }
  const starting = Date.now();
  held.workers.push(await startWorker(workerVariables, { built: true }));
  const stopping = Date.now();
  await held.workers.shift()!.stop();
  say(
    `worker replaced: this checkout's healthy in ${seconds(stopping - starting)} s beside the release's, ` +
      `which then stopped by SIGTERM in ${seconds(Date.now() - stopping)} s`,
  );
  await step();
  stopped = true;
  await load.done();
  say('load stopped; the followers catch up and compare their copies with the lists');
  const comparisons = await Promise.all(load.followers.map((f) => f.compare()));
  return check(env, subscription, receiver, bodies, load.writes, comparisons, steps);
}

export async function benchUpgrade(options: UpgradeOptions): Promise<void> {
  const held: Held = { dir: makeTempDir('bench-upgrade-'), gateways: [], workers: [] };
  let passed: boolean;
  try {
    passed = await upgrade(held, options);
  } finally {
    await releaseInTurn(
      () => Promise.all(held.gateways.map((g) => g.stop())),
      () => Promise.all(held.workers.map((w) => w.stop())),
      () => held.receiver?.close(),
      () => held.env?.destroy(),
      () => held.release && removeRelease(held.release),
      () => removeTempDir(held.dir),
    );
  }
  if (!passed) {
    console.log('upgrade: FAILED');
    process.exitCode = 1;
  }
}
