// Freshness under write load: a generated dashboard, the worker's real runner at default settings,
// then `rate` legacy changes per second for `seconds` across tables (member and transaction
// updates, presence and notification inserts) over dashboard-style connections (their own
// sessions at +03:00, autocommit). Reports commit-to-visible p50/p99 and the legacy query load the
// worker causes, idle and under load (queries and rows it fetched, counted in the worker's client;
// the legacy server's CPU and rows read are server-wide on a shared server).
//   npm run bench -- --only lag [--lag-rate 50] [--lag-seconds 60] [--lag-scale 35]
import { createReadModelClient } from '#common/databases.js';
import { createLegacyClient, legacyPool, type LegacyClient } from '#common/legacy-database.js';
import { createLogger } from '#common/logger.js';
import { createRedis } from '#common/redis.js';
import { generateLegacyData } from '../scripts/legacy/generate-data.js';
import { connectLegacy } from '../scripts/legacy/legacy-database.js';
import { syncTable } from '../worker/src/sync/sync-engine.js';
import { startSyncRunner } from '../worker/src/sync/sync-runner.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import { benchEnvironment } from './cleanup.js';
import { legacyLoadSince, legacyLoadSnapshot } from './legacy-load.js';
import { measureVisibility, type LagOptions } from './lag-writes.js';

/**
 * The worker's legacy client, counting the queries it sends and the rows they return at its
 * mariadb pool, where both the ORM's queries and the sync's batch reads pass.
 */
function countingLegacyClient(url: string) {
  const counts = { queries: 0, rows: 0 };
  const client = createLegacyClient(url);
  const pool = legacyPool(client);
  const count = <F extends (...args: never[]) => Promise<unknown>>(send: F) =>
    (async (...args: Parameters<F>) => {
      counts.queries += 1;
      const result = await send(...args);
      if (Array.isArray(result)) counts.rows += result.length;
      return result;
    }) as F;
  pool.query = count(pool.query.bind(pool));
  pool.execute = count(pool.execute.bind(pool));
  return { client, counts };
}

async function loadOver(
  label: string,
  ms: number,
  legacy: LegacyClient,
  counts: { queries: number; rows: number },
  during: () => Promise<unknown> = () => new Promise((r) => setTimeout(r, ms)),
) {
  const before = { ...counts, server: await legacyLoadSnapshot(legacy) };
  const started = Date.now();
  const result = await during();
  const seconds = (Date.now() - started) / 1000;
  const server = legacyLoadSince(before.server, await legacyLoadSnapshot(legacy));
  console.log(
    `${label}: worker sent ${((counts.queries - before.queries) / seconds).toFixed(1)} legacy queries/s, ` +
      `fetched ${Math.round((counts.rows - before.rows) / seconds)} rows/s; legacy server ` +
      `${server.cpuSeconds === null ? 'CPU n/a' : `${((server.cpuSeconds / seconds) * 100).toFixed(0)}% of a core`}, ` +
      `${Math.round(server.rowsRead / seconds)} rows read/s (server-wide, shared)`,
  );
  return result;
}

export async function benchLag(options: LagOptions & { scale: number }) {
  const env = await benchEnvironment('benchlag');
  try {
    const conn = await connectLegacy(env.legacyUrl);
    await generateLegacyData(conn, { scale: options.scale, seed: 2 });
    await conn.end();
    const config = env.config();
    const { client: legacy, counts } = countingLegacyClient(env.legacyReadOnlyUrl);
    const readModel = createReadModelClient(config.db.url);
    for (const table of SYNC_TABLES) {
      let run;
      do run = await syncTable(table, { legacy, readModel });
      while (!run.caughtUp);
    }
    const connection = createRedis(config.redis.url, {
      forWorker: true,
      caFile: config.redis.caFile,
    });
    const runner = await startSyncRunner({
      legacy,
      readModel,
      connection,
      prefix: config.redis.prefix,
      intervalMs: config.sync.intervalMs,
      reconcileIntervalMs: config.sync.reconcileIntervalMs,
      logger: createLogger({ level: 'silent', name: 'bench-lag' }),
    });
    try {
      // The first reconciliation pass runs at start: let it finish before measuring idle.
      await new Promise((r) => setTimeout(r, 5000));
      await loadOver('idle (10 s)', 10_000, legacy, counts);
      const lags = await loadOver(`under ${options.rate} changes/s`, 0, legacy, counts, () =>
        measureVisibility(env.legacyUrl, readModel, options),
      );
      return lags;
    } finally {
      await runner.close();
      connection.disconnect();
      await Promise.allSettled([legacy.$disconnect(), readModel.$disconnect()]);
    }
  } finally {
    await env.destroy();
  }
}
