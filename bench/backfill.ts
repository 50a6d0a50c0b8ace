// Backfill throughput: generates a legacy dashboard of the given scale (scale 350 is about one
// million rows across tables) in a throwaway database, then starts the compiled worker as
// production runs it, in its own process with its default settings, and times it from start until
// every table is caught up and the indexes its first load deferred are built again. Reports rows
// per second, overall and per table (time to its first catch-up), and the worker's resident memory,
// sampled from /proc while it runs (and its peak, VmHWM). Then measures one full reconciliation
// pass over the synced dashboard (bench/reconcile.ts).
//   npm run bench -- --only backfill [--scale 350] [--profile]
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { createReadModelClient, readModelPool } from '#common/databases.js';
import { createLegacyClient } from '#common/legacy-database.js';
import { generateLegacyData } from '../scripts/legacy/generate-data.js';
import { connectLegacy } from '../scripts/legacy/legacy-database.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import { startWorker, type Started } from './gateway/processes.js';
import { benchEnvironment, makeTempDir, releaseInTurn, removeTempDir } from './cleanup.js';
import { printProfileSplit } from './gateway/profile.js';
import { legacyLoadSince, legacyLoadSnapshot } from './legacy-load.js';
import { benchReconcilePass } from './reconcile.js';

interface TableTotals {
  table: string;
  rows: number;
  seconds: number;
}

/**
 * Polls the sync positions until every table has caught up once and has built the indexes its
 * first load deferred; samples the workers' RSS (summed) and the CPU of the read model's
 * backends. Ten times a second, on the machine it measures: each poll is one query through pg,
 * not the ORM, whose per-query cost made the poll itself about a twentieth of a core.
 */
export async function waitForBackfill(
  readModel: pg.Pool,
  workers: Started[],
  started: number,
  backends: BackendCpu,
) {
  const caughtUp = new Map<string, TableTotals>();
  let peakRssMb = 0;
  let indexesPending = true;
  while (caughtUp.size < SYNC_TABLES.length || indexesPending) {
    for (const worker of workers) {
      if (worker.child.exitCode !== null)
        throw new Error(`worker exited (${worker.child.exitCode})`);
    }
    peakRssMb = Math.max(
      peakRssMb,
      workers.reduce((mb, worker) => mb + worker.rssMb(), 0),
    );
    const { rows } = await readModel.query<{
      table_name: string | null;
      synced: boolean;
      rows_synced: string;
      pending: number;
      backends: number[];
    }>(`SELECT s.table_name, s.synced_at IS NOT NULL AS synced, s.rows_synced,
        cardinality(s.deferred_indexes) AS pending, b.pids AS backends
      FROM (SELECT array_agg(pid) AS pids FROM pg_stat_activity
        WHERE datname = current_database()) b LEFT JOIN sync_state s ON true`);
    backends.sample(rows[0]?.backends ?? []);
    const states = rows.filter((s) => s.table_name !== null);
    for (const s of states.filter((state) => state.synced)) {
      const table = s.table_name ?? '';
      if (caughtUp.has(table)) continue;
      const seconds = (Date.now() - started) / 1000;
      caughtUp.set(table, { table, rows: Number(s.rows_synced), seconds });
    }
    indexesPending = states.some((s) => s.pending > 0);
    await sleep(100);
  }
  return { perTable: [...caughtUp.values()], peakRssMb };
}

/**
 * CPU seconds used by the PostgreSQL backends connected to this database (Linux /proc), sampled
 * while the backfill runs: a backend that ends before the last sample (the connection that builds
 * deferred indexes, a pooled one closed when idle) still counts with its last sampled figure.
 */
export function backendCpu() {
  const ticksByPid = new Map<number, number>();
  return {
    sample(pids: readonly number[]) {
      for (const pid of pids) {
        try {
          const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
          ticksByPid.set(pid, Number(fields[11]) + Number(fields[12]));
        } catch {
          // A backend that ended meanwhile.
        }
      }
    },
    pids: () => [...ticksByPid.keys()],
    seconds: () => [...ticksByPid.values()].reduce((a, b) => a + b, 0) / 100,
  };
}
export type BackendCpu = ReturnType<typeof backendCpu>;

function report(perTable: TableTotals[], totalRows: number, seconds: number, rss: string) {
  for (const t of perTable.filter((p) => p.rows > 0)) {
    const rate = Math.round(t.rows / Math.max(t.seconds, 0.001));
    console.log(
      `  ${t.table.padEnd(24)} ${String(t.rows).padStart(8)} rows, caught up at ${t.seconds.toFixed(1).padStart(6)} s ` +
        `${String(rate).padStart(7)} rows/s`,
    );
  }
  const lastCaughtUp = Math.max(...perTable.map((t) => t.seconds));
  console.log(
    `backfill: ${totalRows} rows in ${seconds.toFixed(1)} s = ${Math.round(totalRows / seconds)} rows/s ` +
      `(every table caught up at ${lastCaughtUp.toFixed(1)} s, its indexes built by the end), worker ${rss}`,
  );
}

export async function benchBackfill(options: { scale: number; profile: boolean }) {
  const env = await benchEnvironment('bench');
  const { databaseUrl, legacyUrl } = env;
  const readModel = createReadModelClient(databaseUrl, { poolSize: 2 });
  let worker: Started | undefined;
  let profileDir: string | undefined;
  try {
    if (options.profile) profileDir = makeTempDir('worker-profile-');
    const conn = await connectLegacy(legacyUrl);
    const generatedAt = Date.now();
    const counts = await generateLegacyData(conn, { scale: options.scale, seed: 1 });
    await conn.end();
    const totalRows = Object.values(counts).reduce((a, b) => a + b, 0);
    console.log(
      `generated ${totalRows} legacy rows in ${((Date.now() - generatedAt) / 1000).toFixed(1)} s`,
    );

    const legacy = createLegacyClient(legacyUrl, { poolSize: 1 });
    const legacyBefore = await legacyLoadSnapshot(legacy);
    worker = await startWorker(
      {
        DATABASE_URL: databaseUrl,
        LEGACY_DATABASE_URL: env.legacyReadOnlyUrl,
        REDIS_URL: env.redisUrl,
        REDIS_PREFIX: env.redisPrefix,
      },
      { profileDir },
    );
    // Timed from the worker's spawn: the build check before it is no part of its work.
    const started = worker.startedAt;
    const startRssMb = worker.rssMb();
    const backends = backendCpu();
    const { perTable, peakRssMb } = await waitForBackfill(
      readModelPool(readModel),
      [worker],
      started,
      backends,
    );
    const seconds = (Date.now() - started) / 1000;
    const workerCpuSeconds = worker.cpuMs() / 1000;
    backends.sample(backends.pids());
    const readModelCpu = backends.seconds();
    const legacyLoad = legacyLoadSince(legacyBefore, await legacyLoadSnapshot(legacy));
    const rss =
      `RSS ${Math.round(startRssMb)} MB once started, peak ${Math.round(peakRssMb)} MB ` +
      `(sampled every 100 ms; VmHWM ${Math.round(worker.peakRssMb())} MB)`;
    await worker.stop();
    report(perTable, totalRows, seconds, rss);
    const legacyCpu =
      legacyLoad.cpuSeconds === null ? 'n/a' : `${legacyLoad.cpuSeconds.toFixed(1)} s`;
    console.log(
      `  CPU: worker ${workerCpuSeconds.toFixed(1)} s (${((workerCpuSeconds / totalRows) * 1e6).toFixed(1)} µs a row), ` +
        `PostgreSQL ${readModelCpu.toFixed(1)} s (the backends of this database), legacy server ${legacyCpu} (server-wide, shared)`,
    );

    // A full pass from the start: the worker may have begun one once the tables had caught up.
    await readModel.syncState.updateMany({
      data: { reconcile_cursor: null, reconcile_started_at: null },
    });
    const reconcile = await benchReconcilePass({ legacy, readModel });
    await legacy.$disconnect();
    return {
      totalRows,
      seconds,
      rowsPerSecond: totalRows / seconds,
      peakRssMb,
      perTable,
      reconcile,
    };
  } finally {
    await releaseInTurn(
      () => worker?.stop(),
      () => readModel.$disconnect(),
      () => env.destroy(),
      // The profile is written as the worker exits: read it, then remove it.
      () => profileDir && printProfileSplit(profileDir, 'worker'),
      () => profileDir && removeTempDir(profileDir),
    );
  }
}
