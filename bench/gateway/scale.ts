// Gateway requests/s with 1 and with 2 gateway processes behind one port on this machine (part of
// `npm run bench -- --only scale`, bench/scale.ts). Node 20 has no `reusePort`: both figures run
// the compiled gateway under cluster-launcher.ts (node:cluster, its primary holding the port), so
// they differ only in the number of processes. The load generator runs in its own process
// (load.ts), on GET /members/{id} and the first page of the members list, a warm-up as long as a
// round, then rounds alternating which count goes first. Each run also records the cores in use
// by the load generator, the gateway processes (launcher included), PostgreSQL and Redis.
import { createReadModelClient } from '#common/databases.js';
import { benchEnvironment, releaseInTurn } from '../cleanup.js';
import {
  coresBetween,
  exitedChildrenCpuMs,
  formatCores,
  machineBusyMs,
  meanCores,
  namedProcessesCpu,
  snapshotCpu,
  type CpuCounters,
  type CpuSnapshot,
} from '../cpu.js';
import { ENDPOINTS, type BenchEndpoint } from './endpoints.js';
import { requestOf, type Credentials } from './index.js';
import { applyLoad, loadGenerator, type LoadResult } from './load.js';
import { buildIfStale, startGateway, type Started } from './processes.js';
import { createBenchClient, issueToken, seedMembers } from './seed.js';

export interface GatewayScaleOptions {
  seconds: number;
  rounds: number;
  members: number;
}

export const PROCESS_COUNTS = [1, 2] as const;
type Count = (typeof PROCESS_COUNTS)[number];

const SCALE_ENDPOINTS = ['members detail', 'members list'];

interface Run {
  result: LoadResult;
  cores: CpuSnapshot;
}

export interface EndpointScale {
  endpoint: BenchEndpoint;
  /** Mean requests/s over the rounds, and the rounds' spread, per process count. */
  rps: Record<Count, { mean: number; min: number; max: number }>;
  ratio: { mean: number; min: number; max: number };
  /** Mean cores in use per process count: load generator, gateway processes, servers. */
  cores: Record<Count, CpuSnapshot>;
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const spread = (xs: number[]) => ({ mean: mean(xs), min: Math.min(...xs), max: Math.max(...xs) });
export const countLabel = (n: number, what = 'gateway') =>
  `${n} ${what} process${n > 1 ? 'es' : ''}`;

async function run(
  endpoint: BenchEndpoint,
  gateway: Started,
  who: Credentials,
  seconds: number,
  servers: CpuCounters,
): Promise<Run> {
  const counters = {
    [loadGenerator]: exitedChildrenCpuMs,
    gateway: () => gateway.cpuMs(),
    ...servers,
    machine: machineBusyMs,
  };
  const before = snapshotCpu(counters);
  const startedAt = Date.now();
  const result = await applyLoad(requestOf(endpoint, gateway, who, seconds));
  const elapsed = (Date.now() - startedAt) / 1000;
  return { result, cores: coresBetween(before, snapshotCpu(counters), elapsed) };
}

function summary(endpoint: BenchEndpoint, runs: Record<Count, Run[]>): EndpointScale {
  const rpsOf = (n: Count) => runs[n].map((r) => r.result.requestsPerSecond);
  const ratios = runs[2].map(
    (r, i) => r.result.requestsPerSecond / runs[1][i]!.result.requestsPerSecond,
  );
  const scale: EndpointScale = {
    endpoint,
    rps: { 1: spread(rpsOf(1)), 2: spread(rpsOf(2)) },
    ratio: { ...spread(ratios), mean: mean(rpsOf(2)) / mean(rpsOf(1)) },
    cores: { 1: meanCores(runs[1].map((r) => r.cores)), 2: meanCores(runs[2].map((r) => r.cores)) },
  };
  console.log(
    `\n${endpoint.method} ${endpoint.path} (${endpoint.name}, ${endpoint.connections} connections)`,
  );
  for (const n of PROCESS_COUNTS) {
    const { mean: rps, min, max } = scale.rps[n];
    const results = runs[n].map((r) => r.result);
    console.log(
      `  ${countLabel(n).padEnd(19)} ${fmt(rps).padStart(6)} req/s (rounds ${fmt(min)}–${fmt(max)}), ` +
        `p50 ${fmt(median(results.map((r) => r.p50Ms)), 2)} ms, p99 ${fmt(median(results.map((r) => r.p99Ms)), 2)} ms; ` +
        `cores ${formatCores(scale.cores[n])}`,
    );
  }
  console.log(
    `  ratio 2/1 ${fmt(scale.ratio.mean, 2)} (rounds ${fmt(scale.ratio.min, 2)}–${fmt(scale.ratio.max, 2)})`,
  );
  const failures = [...runs[1], ...runs[2]].reduce((n, r) => n + r.result.failures, 0);
  if (failures > 0) console.log(`  !! ${failures} failed requests (non-2xx, errors, timeouts)`);
  return scale;
}

export async function benchGatewayScale(options: GatewayScaleOptions): Promise<EndpointScale[]> {
  const env = await benchEnvironment('bench');
  const gateways: Partial<Record<Count, Started>> = {};
  const db = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  try {
    console.log(`seeding ${options.members} members; load generator: ${loadGenerator}`);
    await seedMembers(env.databaseUrl, options.members);
    const client = await createBenchClient(db);
    const variables = {
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      REDIS_PREFIX: env.redisPrefix,
    };
    buildIfStale();
    for (const n of PROCESS_COUNTS) {
      gateways[n] = await startGateway(variables, { built: true, processes: n });
    }
    const started = gateways as Record<Count, Started>;
    const token = await issueToken(started[1], client.client_key, client.client_secret);
    const who = { ...client, token };
    const servers = {
      PostgreSQL: namedProcessesCpu('postgres'),
      Redis: namedProcessesCpu('redis-server'),
    };
    const endpoints = ENDPOINTS.filter((e) => SCALE_ENDPOINTS.includes(e.name));
    // A warm-up as long as a round, as the gateway bench's (bench/gateway/index.ts).
    for (const endpoint of endpoints) {
      for (const n of PROCESS_COUNTS)
        await run(endpoint, started[n], who, options.seconds, servers);
    }
    const runs = new Map<BenchEndpoint, Record<Count, Run[]>>(
      endpoints.map((e) => [e, { 1: [], 2: [] }]),
    );
    for (let round = 0; round < options.rounds; round++) {
      for (const endpoint of endpoints) {
        const order = round % 2 === 0 ? PROCESS_COUNTS : [...PROCESS_COUNTS].reverse();
        for (const n of order) {
          const measured = await run(endpoint, started[n], who, options.seconds, servers);
          runs.get(endpoint)![n].push(measured);
          const { result } = measured;
          console.log(
            `round ${round + 1} ${endpoint.name.padEnd(15)} ${countLabel(n).padEnd(19)} ${fmt(result.requestsPerSecond).padStart(6)} req/s  ` +
              `p50 ${fmt(result.p50Ms, 2)} ms  p99 ${fmt(result.p99Ms, 2)} ms  cores ${formatCores(measured.cores)}` +
              (result.failures ? `  ${result.failures} failed` : ''),
          );
        }
      }
    }
    return [...runs].map(([endpoint, byCount]) => summary(endpoint, byCount));
  } finally {
    await releaseInTurn(
      () => Promise.all(Object.values(gateways).map((g) => g.stop())),
      () => db.$disconnect(),
      () => env.destroy(),
    );
  }
}
