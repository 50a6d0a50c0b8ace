// Backfill throughput: generates a legacy dashboard of the given scale (scale 350 is about one
// million rows across tables) in a throwaway database, backfills the read model with the worker's
// own engine, table by table (in parallel they only contend for a shared machine's two cores), and
// reports rows per second, overall and per table, and the peak RSS of the backfilling process. Then measures one
// full reconciliation pass over the synced dashboard (bench/reconcile.ts).
//   npm run bench -- --only backfill [--scale 350]
import { createLegacyClient, createReadModelClient } from '../common/databases.js';
import { loadConfig } from '../common/config.js';
import { generateLegacyData } from '../scripts/legacy/generate-data.js';
import { connectLegacy } from '../scripts/legacy/legacy-database.js';
import { createThrowawayEnvironment, serverUrlsOf } from '../scripts/throwaway-environment.js';
import {
  DEFAULT_SYNC_OPTIONS,
  syncTable,
  type SyncDatabases,
} from '../worker/src/sync/sync-engine.js';
import type { SyncTable } from '../worker/src/sync/table-definition.js';
import { SYNC_TABLES } from '../worker/src/sync/tables/index.js';
import { benchReconcilePass } from './reconcile.js';

interface TableTotals {
  table: string;
  rows: number;
  seconds: number;
  readMs: number;
  writeMs: number;
}

async function backfillTable(table: SyncTable, db: SyncDatabases): Promise<TableTotals> {
  const started = Date.now();
  const totals = { rows: 0, readMs: 0, writeMs: 0 };
  let run;
  do {
    run = await syncTable(table, db, { ...DEFAULT_SYNC_OPTIONS, timeBudgetMs: 60_000 });
    totals.rows += run.rowsRead;
    totals.readMs += run.legacyReadMs;
    totals.writeMs += run.writeMs;
  } while (!run.caughtUp);
  return { table: table.name, ...totals, seconds: (Date.now() - started) / 1000 };
}

/** Samples this process's RSS until stopped; returns the peak in MB. */
function watchRss(everyMs = 100) {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, everyMs);
  return () => {
    clearInterval(timer);
    return Math.max(peak, process.memoryUsage().rss) / 1024 / 1024;
  };
}

function report(
  perTable: TableTotals[],
  totalRows: number,
  seconds: number,
  peakRssMb: number,
  startRssMb: number,
) {
  const s1 = (ms: number) => (ms / 1000).toFixed(1);
  for (const t of perTable.filter((p) => p.rows > 0)) {
    const rate = Math.round(t.rows / Math.max(t.seconds, 0.001));
    console.log(
      `  ${t.table.padEnd(24)} ${String(t.rows).padStart(8)} rows ${t.seconds.toFixed(1).padStart(6)} s ` +
        `${String(rate).padStart(7)} rows/s (legacy read ${s1(t.readMs)} s, read-model write ${s1(t.writeMs)} s)`,
    );
  }
  console.log(
    `backfill: ${totalRows} rows in ${seconds.toFixed(1)} s = ${Math.round(totalRows / seconds)} rows/s, ` +
      `peak RSS ${Math.round(peakRssMb)} MB (${Math.round(startRssMb)} MB before the backfill)`,
  );
}

export async function benchBackfill(options: { scale: number }) {
  const env = await createThrowawayEnvironment(serverUrlsOf(loadConfig()), 'bench');
  const { databaseUrl, legacyUrl } = env;
  try {
    const conn = await connectLegacy(legacyUrl);
    const generatedAt = Date.now();
    const counts = await generateLegacyData(conn, { scale: options.scale, seed: 1 });
    await conn.end();
    const totalRows = Object.values(counts).reduce((a, b) => a + b, 0);
    console.log(
      `generated ${totalRows} legacy rows in ${((Date.now() - generatedAt) / 1000).toFixed(1)} s`,
    );

    // The worker's own clients, with their default pools.
    const db = {
      legacy: createLegacyClient(legacyUrl),
      readModel: createReadModelClient(databaseUrl),
    };
    global.gc?.();
    const stopRss = watchRss();
    const started = Date.now();
    const startRssMb = process.memoryUsage().rss / 1024 / 1024;
    const perTable: TableTotals[] = [];
    for (const table of SYNC_TABLES) perTable.push(await backfillTable(table, db));
    const seconds = (Date.now() - started) / 1000;
    const peakRssMb = stopRss();
    report(perTable, totalRows, seconds, peakRssMb, startRssMb);
    const reconcile = await benchReconcilePass(db);
    await Promise.all([db.legacy.$disconnect(), db.readModel.$disconnect()]);
    return {
      totalRows,
      seconds,
      rowsPerSecond: totalRows / seconds,
      peakRssMb,
      perTable,
      reconcile,
    };
  } finally {
    await env.destroy();
  }
}
