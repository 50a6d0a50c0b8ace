// Backfill throughput: generates a legacy dashboard of the given scale (scale 350 is about one
// million rows across tables) in a throwaway database, backfills the read model table by table
// with the worker's own engine, and reports rows per second, overall and per table.
//   npm run bench -- --only backfill [--scale 350]
import { createLegacyClient, createReadModelClient } from '../common/databases.js';
import { loadConfig } from '../common/config.js';
import { generateLegacyData } from '../scripts/legacy/generate-data.js';
import { connectLegacy } from '../scripts/legacy/legacy-database.js';
import { createThrowawayEnvironment, serverUrlsOf } from '../scripts/throwaway-environment.js';
import { syncTable } from '../worker/src/sync/sync-engine.js';
import { benchReconcilePass } from './reconcile.js';
import { SYNC_TABLES } from '../worker/src/sync/tables/index.js';

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

    const legacy = createLegacyClient(legacyUrl);
    const readModel = createReadModelClient(databaseUrl);
    const perTable: {
      table: string;
      rows: number;
      seconds: number;
      readMs: number;
      writeMs: number;
    }[] = [];
    const started = Date.now();
    for (const table of SYNC_TABLES) {
      const tableStarted = Date.now();
      const totals = { rows: 0, readMs: 0, writeMs: 0 };
      let run;
      do {
        run = await syncTable(
          table,
          { legacy, readModel },
          { lookbackSeconds: 10, batchSize: 2000, timeBudgetMs: 60_000 },
        );
        totals.rows += run.rowsRead;
        totals.readMs += run.legacyReadMs;
        totals.writeMs += run.writeMs;
      } while (!run.caughtUp);
      perTable.push({ table: table.name, ...totals, seconds: (Date.now() - tableStarted) / 1000 });
    }
    const seconds = (Date.now() - started) / 1000;
    const reconcile = await benchReconcilePass({ legacy, readModel });
    await Promise.all([legacy.$disconnect(), readModel.$disconnect()]);

    const seconds1 = (ms: number) => (ms / 1000).toFixed(1);
    for (const t of perTable.filter((p) => p.rows > 0)) {
      const rate = Math.round(t.rows / Math.max(t.seconds, 0.001));
      console.log(
        `  ${t.table.padEnd(24)} ${String(t.rows).padStart(8)} rows ${t.seconds.toFixed(1).padStart(6)} s ` +
          `${String(rate).padStart(7)} rows/s (legacy read ${seconds1(t.readMs)} s, read-model write ${seconds1(t.writeMs)} s)`,
      );
    }
    const readMs = perTable.reduce((sum, t) => sum + t.readMs, 0);
    const writeMs = perTable.reduce((sum, t) => sum + t.writeMs, 0);
    console.log(
      `time: legacy read ${seconds1(readMs)} s, mapping + read-model write ${seconds1(writeMs)} s`,
    );
    console.log(
      `backfill: ${totalRows} rows in ${seconds.toFixed(1)} s = ${Math.round(totalRows / seconds)} rows/s`,
    );
    return { totalRows, seconds, rowsPerSecond: totalRows / seconds, perTable, reconcile };
  } finally {
    await env.destroy();
  }
}
