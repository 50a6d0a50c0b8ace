// Backfill rate with 1 and with 2 worker processes (part of `npm run bench -- --only scale`,
// bench/scale.ts). One legacy dashboard of the given scale is generated once; each run backfills
// it into a read model and Redis prefix of its own (a fresh throwaway environment, its legacy
// database unused) with the compiled worker as production starts it, `WORKER_ROLES=sync`, in 1
// or 2 processes spawned together: the processes share the tables (one BullMQ queue per table,
// global concurrency 1). Timed as bench/backfill.ts times one worker: from the first spawn until
// every table has caught up and rebuilt the indexes its first load deferred. Rounds alternate
// which count goes first; each run also records the cores in use by the workers, the read
// model's PostgreSQL backends, MariaDB and Redis.
import pg from 'pg';
import { generateLegacyData } from '../scripts/legacy/generate-data.js';
import { connectLegacy } from '../scripts/legacy/legacy-database.js';
import { backendCpu, waitForBackfill } from './backfill.js';
import { benchEnvironment, releaseInTurn } from './cleanup.js';
import {
  formatCores,
  machineBusyMs,
  meanCores,
  namedProcessesCpu,
  type CpuSnapshot,
} from './cpu.js';
import { buildIfStale, startWorker, type Started } from './gateway/processes.js';
import { countLabel, PROCESS_COUNTS } from './gateway/scale.js';
import type { ThrowawayEnvironment } from '../scripts/throwaway-environment.js';

type Count = (typeof PROCESS_COUNTS)[number];

export interface BackfillScale {
  totalRows: number;
  rowsPerSecond: Record<Count, { mean: number; min: number; max: number }>;
  ratio: { mean: number; min: number; max: number };
  cores: Record<Count, CpuSnapshot>;
}

interface Run {
  seconds: number;
  /** From the first spawn until every process answered /healthz (they sync meanwhile). */
  upSeconds: number;
  rowsPerSecond: number;
  cores: CpuSnapshot;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const spread = (xs: number[]) => ({ mean: mean(xs), min: Math.min(...xs), max: Math.max(...xs) });
const rate = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * One backfill of `source`'s legacy dashboard by `count` worker processes into a fresh read model.
 */
async function backfillWith(
  count: Count,
  source: ThrowawayEnvironment,
  totalRows: number,
): Promise<Run> {
  const target = await benchEnvironment('bench');
  // A bare pool, not an ORM client: the polls are its only queries (bench/backfill.ts), and it
  // must be ended before the database is dropped.
  const readModel = new pg.Pool({ connectionString: target.databaseUrl, max: 2 });
  readModel.on('error', () => undefined);
  const workers: Started[] = [];
  try {
    const variables = {
      DATABASE_URL: target.databaseUrl,
      LEGACY_DATABASE_URL: source.legacyReadOnlyUrl,
      REDIS_URL: target.redisUrl,
      REDIS_PREFIX: target.redisPrefix,
      WORKER_ROLES: 'sync',
    };
    const mariadb = namedProcessesCpu('mariadbd');
    const redis = namedProcessesCpu('redis-server');
    buildIfStale();
    const before = { mariadb: mariadb(), redis: redis(), machine: machineBusyMs() };
    // Spawned together; one that fails to start still leaves the others to be stopped.
    const starting = Array.from({ length: count }, () => startWorker(variables, { built: true }));
    for (const result of await Promise.allSettled(starting)) {
      if (result.status === 'fulfilled') workers.push(result.value);
    }
    await Promise.all(starting);
    const started = Math.min(...workers.map((w) => w.startedAt));
    const upSeconds = (Date.now() - started) / 1000;
    const backends = backendCpu();
    await waitForBackfill(readModel, workers, started, backends);
    const seconds = (Date.now() - started) / 1000;
    const workerMs = workers.reduce((ms, w) => ms + w.cpuMs(), 0);
    backends.sample(backends.pids());
    const cpuMs = {
      [count > 1 ? 'workers' : 'worker']: workerMs,
      PostgreSQL: backends.seconds() * 1000,
      MariaDB: mariadb() - before.mariadb,
      Redis: redis() - before.redis,
      machine: machineBusyMs() - before.machine,
    };
    const cores = Object.fromEntries(
      Object.entries(cpuMs).map(([name, ms]) => [name, ms / 1000 / seconds]),
    );
    return { seconds, upSeconds, rowsPerSecond: totalRows / seconds, cores };
  } finally {
    await releaseInTurn(
      () => Promise.all(workers.map((w) => w.stop())),
      () => readModel.end(),
      () => target.destroy(),
    );
  }
}

export async function benchBackfillScale(options: {
  scale: number;
  rounds: number;
}): Promise<BackfillScale> {
  const source = await benchEnvironment('bench');
  try {
    const conn = await connectLegacy(source.legacyUrl);
    const generatedAt = Date.now();
    const counts = await generateLegacyData(conn, { scale: options.scale, seed: 1 });
    await conn.end();
    const totalRows = Object.values(counts).reduce((a, b) => a + b, 0);
    console.log(
      `generated ${totalRows} legacy rows (scale ${options.scale}) in ${((Date.now() - generatedAt) / 1000).toFixed(1)} s; ` +
        'each run backfills them into a fresh read model, WORKER_ROLES=sync',
    );
    const runs: Record<Count, Run[]> = { 1: [], 2: [] };
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? PROCESS_COUNTS : [...PROCESS_COUNTS].reverse();
      for (const n of order) {
        const run = await backfillWith(n, source, totalRows);
        runs[n].push(run);
        console.log(
          `round ${round + 1} ${countLabel(n, 'worker').padEnd(18)} ${totalRows} rows in ${run.seconds.toFixed(1).padStart(5)} s = ` +
            `${rate(run.rowsPerSecond).padStart(7)} rows/s (all up at ${run.upSeconds.toFixed(1)} s)  cores ${formatCores(run.cores)}`,
        );
      }
    }
    const rpsOf = (n: Count) => runs[n].map((r) => r.rowsPerSecond);
    const ratios = runs[2].map((r, i) => r.rowsPerSecond / runs[1][i]!.rowsPerSecond);
    const scale: BackfillScale = {
      totalRows,
      rowsPerSecond: { 1: spread(rpsOf(1)), 2: spread(rpsOf(2)) },
      ratio: { ...spread(ratios), mean: mean(rpsOf(2)) / mean(rpsOf(1)) },
      cores: {
        1: meanCores(runs[1].map((r) => r.cores)),
        2: meanCores(runs[2].map((r) => r.cores)),
      },
    };
    console.log(`\nbackfill of ${totalRows} rows, until every table has caught up`);
    for (const n of PROCESS_COUNTS) {
      const { mean: rps, min, max } = scale.rowsPerSecond[n];
      console.log(
        `  ${countLabel(n, 'worker').padEnd(18)} ${rate(rps).padStart(7)} rows/s (rounds ${rate(min)}–${rate(max)}); ` +
          `cores ${formatCores(scale.cores[n])}`,
      );
    }
    console.log(
      `  ratio 2/1 ${scale.ratio.mean.toFixed(2)} (rounds ${scale.ratio.min.toFixed(2)}–${scale.ratio.max.toFixed(2)})`,
    );
    return scale;
  } finally {
    await source.destroy();
  }
}
