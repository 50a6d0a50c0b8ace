// npm run bench -- --only soak [--minutes N] [--faults] [--report-every-seconds S]
// A year unattended, compressed: the compiled gateway and worker, each its own process, under a
// steady mixed load for N minutes (30 by default) with every retention at five minutes. Load
// from processes of their own: 20 partners reading every endpoint group (4 bound to a branch),
// 5 member writes/s through the API, token pairs renewed every 30 s, two change-feed followers
// keeping a copy (bench/soak/api-load.ts); 20 legacy changes/s from a dashboard-like writer
// (bench/soak/legacy-writer.ts); three webhook subscribers, one answering 500 to a tenth of its
// deliveries (bench/soak/receivers.ts); every retention at 5 minutes, webhook retries within 4
// (bench/soak/setup.ts). Every S seconds (300) one block: RSS and CPU per process, PostgreSQL's
// size and largest tables, Redis memory, p50/p99 per group, 5xx, sync lag p99, webhook events
// pending (bench/soak/measure.ts). At the end sync:verify, the webhook ledgers
// (bench/soak/checks.ts), each feed copy against the lists, every statement PostgreSQL took over
// 100 ms by application and shape (bench/soak/slow-statements.ts), and a verdict per acceptance
// point (bench/soak/verdict.ts). PostgreSQL and Redis are the bench's own, with their default
// settings (autovacuum on): a shared server tuned for tests (autovacuum off) bloats in minutes
// and would measure its tuning, not the product. `--faults`: two gateways, and at 20/40/60/80 %
// of the run Redis restarted, PostgreSQL restarted, the worker and one gateway SIGKILLed and
// started again (bench/soak/faults.ts); 5xx counted inside and outside each outage.
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { typesRead } from '#api/changes/change-types.js';
import { SCOPES } from '#api/scopes.js';
import { loadConfig } from '#common/config.js';
import { createReadModelClient } from '#common/databases.js';
import { createWebhookService } from '../gateway/src/features/webhooks/webhooks.service.js';
import type { ThrowawayEnvironment } from '../scripts/throwaway-environment.js';
import { benchEnvironment, releaseInTurn } from './cleanup.js';
import { buildIfStale } from './gateway/processes.js';
import { verifySettled, webhookLedgers } from './soak/checks.js';
import {
  faultsOf,
  inject,
  startPrivateServers,
  type Outage,
  type PrivateServers,
} from './soak/faults.js';
import { startCpuTimeline } from './soak/cpu-timeline.js';
import { openProbes, printSnapshot, type Snapshot } from './soak/measure.js';
import type { CopyComparison, WriterMessage } from './soak/messages.js';
import { startReceiver, type Receiver } from './soak/receivers.js';
import { Recording } from './soak/recording.js';
import type { Crash, Supervised } from './soak/supervised.js';
import {
  benchClients,
  forkLoad,
  generateDashboard,
  messageOf,
  processVariables,
  FIRST_RETENTION_ENDS_MINUTES,
  RETENTION_MINUTES,
  startLoadedWorker,
  startSoakGateway,
} from './soak/setup.js';
import { printSlowStatements, readSlowStatements } from './soak/slow-statements.js';
import { printVerdict } from './soak/verdict.js';

export interface SoakOptions {
  minutes: number;
  faults: boolean;
  reportEverySeconds: number;
}

const READERS = 20;
const BOUND_READERS = 4;
/**
 * Reads per second of each reader: 200 a second in all, so that each endpoint group has a few
 * thousand answers in a report, enough for a p99 that is not a handful of them.
 */
const READ_RATE = 10;
const WRITE_RATE = 5;
const LEGACY_RATE = 20;
/**
 * Twice within the access token's minute (bench/soak/setup.ts), so a slow token request still
 * lands before the pair expires; a refresh well within its two.
 */
const TOKEN_EVERY_SECONDS = 30;
/** Hard deletes and notifications reach the read model by reconciliation (once a minute). */
const SETTLE_MS = 150_000;
/** The load processes report once a second: an interval's last answers arrive after it. */
const REPORT_DELAY_MS = 1500;

/** What the run holds; everything in it is released at the end, whatever happened. */
/** A client the soak made, with the credentials its load uses. */
type BenchClient = Awaited<ReturnType<typeof benchClients>>[number];

interface Run {
  options: SoakOptions;
  env: ThrowawayEnvironment;
  servers: PrivateServers;
  probes: ReturnType<typeof openProbes>;
  gateways: Supervised[];
  worker?: Supervised;
  /** Processes that exited on their own (and were started again). */
  crashes: Crash[];
  receivers: Receiver[];
  /** The load processes. */
  loads: ChildProcess[];
  recording: Recording;
}

const supervisedOf = (run: Run) => [...run.gateways, ...(run.worker ? [run.worker] : [])];

/** Processes' RSS now, by name. */
function rssOf(run: Run): Record<string, number> {
  return Object.fromEntries(supervisedOf(run).map((p) => [p.name, p.rssMb()]));
}

/** The soak's own processes by pid: gateways and worker by name, load processes by script. */
function namedPids(run: Run): Map<number, string> {
  const named = new Map<number, string>();
  for (const p of supervisedOf(run)) named.set(p.current.child.pid!, p.name);
  for (const load of run.loads) named.set(load.pid!, basename(load.spawnargs.at(-2)!, '.ts'));
  return named;
}

/** The machine's busy and total CPU time so far (/proc/stat, in clock ticks). */
function machineTicks(): { busy: number; total: number } {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const values = ticks.map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
  const total = values.slice(0, 8).reduce((sum, v) => sum + v, 0);
  return { busy: total - values[3]! - values[4]!, total };
}

/**
 * CPU over the interval since the previous call: each process's share of one core (NaN across a
 * restart), and the machine's share of all its cores, as `machine`.
 */
function cpuMeter(run: Run) {
  let at = Date.now();
  let before = new Map(supervisedOf(run).map((p) => [p.name, p.cpuMs()]));
  let machine = machineTicks();
  return (): Record<string, number> => {
    const now = Date.now();
    const current = new Map(supervisedOf(run).map((p) => [p.name, p.cpuMs()]));
    const shares: Record<string, number> = {};
    for (const [name, ms] of current) {
      const used = ms - (before.get(name) ?? NaN);
      shares[name] = used >= 0 ? (used / (now - at)) * 100 : NaN;
    }
    const ticks = machineTicks();
    shares.machine = ((ticks.busy - machine.busy) / (ticks.total - machine.total)) * 100;
    [at, before, machine] = [now, current, ticks];
    return shares;
  };
}

/** The load period: a block every report interval, the faults at their moments. */
async function loadPeriod(run: Run, started: number) {
  const durationMs = run.options.minutes * 60_000;
  const outages: Outage[] = [];
  const faulting = (async () => {
    if (!run.options.faults || !run.worker) return;
    for (const fault of faultsOf(run.servers, run.worker, run.gateways[1]!)) {
      await sleep(started + fault.at * durationMs - Date.now());
      console.log(`\n!! ${fault.what} at ${((Date.now() - started) / 1000).toFixed(0)} s`);
      outages.push(await inject(fault));
    }
  })();
  const snapshots: Snapshot[] = [];
  const cpu = cpuMeter(run);
  const timeline = startCpuTimeline(() => namedPids(run));
  const minute = (at: number) => ((at - started) / 60_000).toFixed(1);
  for (let from = started; from < started + durationMs;) {
    const to = Math.min(from + run.options.reportEverySeconds * 1000, started + durationMs);
    await sleep(to + REPORT_DELAY_MS - Date.now());
    const snapshot = await run.recording.snapshot(from, to, rssOf(run), cpu(), run.probes);
    snapshots.push(snapshot);
    printSnapshot(snapshot, `${minute(to)} min (since ${minute(from)} min)`);
    from = to;
  }
  await faulting;
  return { snapshots, outages, cpuTimeline: timeline.stop() };
}

/** One subscription per owner, each to a receiver of its own. */
async function subscribeReceivers(
  webhooks: ReturnType<typeof createWebhookService>,
  owners: { id: number }[],
  receivers: Run['receivers'],
) {
  const subscriptions = [];
  for (const [i, owner] of owners.entries()) {
    // Every type, as a subscription without `types` gets for a client allowed everything.
    const types = typesRead(SCOPES);
    const { id } = await webhooks.create(owner.id, {
      url: receivers[i]!.url,
      types,
      description: 'soak',
    });
    subscriptions.push({ id, receiver: receivers[i]! });
  }
  return subscriptions;
}

/** The legacy writer's and the API load's processes, recorded by the run. */
function forkLoads(
  run: Run,
  dashboard: Awaited<ReturnType<typeof generateDashboard>>,
  clients: Record<'readers' | 'followers', BenchClient[]> & { writer: BenchClient },
) {
  const writerProcess = forkLoad('bench/soak/legacy-writer.ts', {
    legacyUrl: run.env.legacyUrl,
    databaseUrl: run.env.databaseUrl,
    rate: LEGACY_RATE,
    memberIds: dashboard.memberIds,
    branchIds: dashboard.branchIds,
    transactionCount: dashboard.transactionCount,
    generatedMemberMax: dashboard.generatedMemberMax,
    settleMs: SETTLE_MS,
  });
  const apiProcess = forkLoad('bench/soak/api-load.ts', {
    gateways: run.gateways.map((g) => g.current.url),
    readers: clients.readers.map((r) => r.credentials),
    readRate: READ_RATE,
    writer: clients.writer.credentials,
    writeRate: WRITE_RATE,
    followers: clients.followers.map((f) => f.credentials),
    memberIds: dashboard.memberIds,
    boundMemberIds: dashboard.boundMemberIds,
    staffIds: dashboard.staffIds,
    branchIds: dashboard.branchIds,
    tokenEverySeconds: TOKEN_EVERY_SECONDS,
  });
  run.loads.push(writerProcess, apiProcess);
  run.recording.listen(writerProcess, apiProcess);
  return { writerProcess, apiProcess };
}

async function soak(run: Run): Promise<void> {
  const { env, options } = run;
  const readModel = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  try {
    const dashboard = await generateDashboard(env.legacyUrl);
    const readers = await benchClients(readModel, READERS, BOUND_READERS);
    const [writer] = await benchClients(readModel, 1);
    const followers = await benchClients(readModel, 2, 1);
    const owners = await benchClients(readModel, 3);
    buildIfStale();
    run.worker = await startLoadedWorker(env, run.crashes);
    for (let i = 0; i < (options.faults ? 2 : 1); i++)
      run.gateways.push(await startSoakGateway(env, `gateway ${i + 1}`, run.crashes));
    run.receivers.push(await startReceiver(), await startReceiver(), await startReceiver(0.1));
    const webhooks = createWebhookService(readModel, loadConfig(processVariables(env)));
    const subscriptions = await subscribeReceivers(webhooks, owners, run.receivers);
    console.log(
      `${options.minutes} min, a report every ${options.reportEverySeconds} s; retention ${RETENTION_MINUTES} min; ` +
        `${run.gateways.length} gateway(s), 1 worker; ${dashboard.memberIds.length} members; ` +
        `${READERS * READ_RATE} reads/s, ${WRITE_RATE} member writes/s, ${LEGACY_RATE} legacy changes/s` +
        '; private PostgreSQL and Redis' +
        (options.faults ? '; faults at 20/40/60/80 %' : ''),
    );
    const { writerProcess, apiProcess } = forkLoads(run, dashboard, {
      readers,
      writer: writer!,
      followers,
    });
    const started = Date.now();
    const { snapshots, outages, cpuTimeline } = await loadPeriod(run, started);

    console.log('\n-- the end: load stopped; the read model settles, then the checks');
    apiProcess.send({ kind: 'stop-load' });
    writerProcess.send({ kind: 'stop' });
    const stopped = await messageOf<Extract<WriterMessage, { kind: 'stopped' }>>(
      writerProcess,
      'stopped',
    );
    console.log(
      `legacy writer: ${stopped.changes} changes, ${stopped.failures} failed, ` +
        `${stopped.unseen} markers never seen in the read model`,
    );
    const verifyDifferences = await verifySettled(
      { DATABASE_URL: env.databaseUrl, LEGACY_DATABASE_URL: env.legacyReadOnlyUrl },
      SETTLE_MS,
    );
    const ledgers = await webhookLedgers(readModel, webhooks.figures, subscriptions);
    apiProcess.send({ kind: 'compare' });
    const { comparisons } = await messageOf<{ kind: 'compared'; comparisons: CopyComparison[] }>(
      apiProcess,
      'compared',
    );
    // Every answer (time, group, ms, status) and who used the CPU every 10 s, for a look at the
    // tails beyond the reports.
    const runFile = join(tmpdir(), `soak-${started}.json`);
    writeFileSync(
      runFile,
      JSON.stringify({ answers: run.recording.samples, cpu: cpuTimeline, snapshots, outages }),
    );
    console.log(`every answer of the run and the CPU every 10 s: ${runFile}`);
    const reference =
      snapshots.find((s) => s.at - started >= FIRST_RETENTION_ENDS_MINUTES * 60_000) ??
      snapshots[0]!;
    // Since the load began: the worker's first load before it is a start-up's, not upkeep.
    const slowStatements = readSlowStatements(run.servers.postgresLog).filter(
      (s) => s.at >= started,
    );
    printSlowStatements(slowStatements, run.servers.postgresLog);
    printVerdict(
      {
        started,
        ended: started + options.minutes * 60_000,
        slowStatements,
        snapshots,
        reference,
        samples: run.recording.samples,
        outages,
        verifyDifferences,
        ledgers,
        comparisons,
        crashes: run.crashes,
      },
      options.faults,
    );
  } finally {
    await readModel.$disconnect();
  }
}

export async function benchSoak(options: SoakOptions): Promise<void> {
  const servers = await startPrivateServers();
  let run: Run | undefined;
  try {
    const env = await benchEnvironment('benchsoak', {
      postgresUrl: servers.postgres.url,
      mysqlUrl: loadConfig().legacy.url,
      redisUrl: servers.redis.url,
    });
    run = {
      options,
      env,
      probes: openProbes(env.databaseUrl, env.redisUrl, env.redisPrefix),
      gateways: [],
      receivers: [],
      loads: [],
      crashes: [],
      recording: new Recording(),
      servers,
    };
    await soak(run);
  } finally {
    const held = run;
    await releaseInTurn(
      ...(held?.loads ?? []).map((child) => () => child.kill('SIGKILL')),
      () => held && Promise.all(held.gateways.map((g) => g.stop())),
      () => held?.worker?.stop(),
      ...(held?.receivers ?? []).map((r) => () => r.close()),
      () => held?.probes.close(),
      () => held?.env.destroy(),
      () => servers.destroy(),
    );
  }
}
