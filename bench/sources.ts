// Both sync sources in one run (decision 0016's figures): SYNC_SOURCE poll, then binlog, against
// one private MariaDB writing a row-based binary log (test/support/spare-mariadb.ts), so the
// server, its settings and the machine are the same for both. The worker is compiled and runs in
// its own process as production runs it (bench/gateway/processes.ts); the load, the partner
// receiving webhooks and the probes run in this one. For each source:
//  1. backfill: rows/s of the first load of one generated dashboard (`scale`, generated once and
//     read by both, each time into a read model of its own), as bench/backfill.ts times it, twice
//     per source;
//  2. at rest: the legacy server's queries per second over `restSeconds` on a synced dashboard
//     of `lagScale`, from SHOW GLOBAL STATUS 'Questions' (the server counts every client's
//     statements; the probe's own is subtracted, nothing else of the bench speaks to it then);
//  3. under load: `rate` legacy changes/s for `seconds` (bench/lag-writes.ts): commit → visible in
//     the read model and commit → webhook received by a local partner answering at once, one
//     subscription to every type (bench/webhooks.ts), p50 and p99 of the same changes.
// Then both sources side by side, the ratio binlog/poll, and the goals met or not.
//   npm run bench -- --only sources [--scale 350] [--lag-rate 50] [--lag-seconds 60]
//     [--lag-scale 35] [--rest-seconds 60]
import { SYNC_SOURCES, type SyncSource } from '#common/config.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { loadConfig } from '#common/config.js';
import { createReadModelClient, readModelPool } from '#common/databases.js';
import { generateLegacyData } from '../scripts/legacy/generate-data.js';
import { connectLegacy } from '../scripts/legacy/legacy-database.js';
import {
  serverUrlsOf,
  type ServerUrls,
  type ThrowawayEnvironment,
} from '../scripts/throwaway-environment.js';
import { SpareMariaDb } from '../test/support/spare-mariadb.js';
import { backendCpu, waitForBackfill } from './backfill.js';
import { benchEnvironment, onInterrupt, releaseInTurn } from './cleanup.js';
import { BENCH_SECRETS_KEY, buildIfStale, startWorker, type Started } from './gateway/processes.js';
import { measureVisibility, percentile, type LagOptions } from './lag-writes.js';
import { commitToReceived, startPartner, subscribePartner } from './webhooks.js';

export interface SourcesOptions extends LagOptions {
  /** The backfill's dashboard (350 ≈ 1,000,000 rows). */
  scale: number;
  /** The dashboard under load and at rest (bench/lag.ts's). */
  lagScale: number;
  restSeconds: number;
}

interface SourceFigures {
  backfillRowsPerSecond: number;
  restQueriesPerSecond: number;
  visible: { p50: number; p99: number; missing: number };
  received: { p50: number; p99: number; missing: number };
}

/** Decision 0016's goals, with the log: p99 commit → read model and → webhook received, ms. */
const GOAL_VISIBLE_P99_MS = 250;
const GOAL_RECEIVED_P99_MS = 500;
/** The log's backfill at most this fraction slower than polling's (faster is met). */
const GOAL_BACKFILL_RATIO = 0.1;

/** The worker's user on `env`'s legacy database gets what `npm run sync:preflight` asks for. */
async function grantReplication(env: ThrowawayEnvironment): Promise<void> {
  const admin = await connectLegacy(env.legacyUrl, { database: null });
  try {
    const user = decodeURIComponent(new URL(env.legacyReadOnlyUrl).username);
    await admin.query(`GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO '${user}'@'%'`);
  } finally {
    await admin.end();
  }
}

/** The worker's variables: `env`'s read model and Redis prefix, the legacy database of `legacyUrl`. */
function workerVariables(env: ThrowawayEnvironment, source: SyncSource, legacyUrl: string) {
  return {
    DATABASE_URL: env.databaseUrl,
    LEGACY_DATABASE_URL: legacyUrl,
    REDIS_URL: env.redisUrl,
    REDIS_PREFIX: env.redisPrefix,
    SYNC_SOURCE: source,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // The worker opens the secrets this process seals.
    SECRETS_KEY: BENCH_SECRETS_KEY,
  };
}

/** The worker from its spawn until every table has caught up once, its deferred indexes built. */
async function timeFirstLoad(readModelUrl: string, worker: Started): Promise<number> {
  const readModel = createReadModelClient(readModelUrl, { poolSize: 2 });
  try {
    await waitForBackfill(readModelPool(readModel), [worker], worker.startedAt, backendCpu());
    return (Date.now() - worker.startedAt) / 1000;
  } finally {
    await readModel.$disconnect();
  }
}

/** How long the server may take to write out and purge what the generation left. */
const SETTLE_LIMIT_MS = 180_000;

/**
 * Waits until InnoDB has written out the pages the generation dirtied and purged its undo
 * history: left to the background, that work would slow whichever first load runs first (a run
 * saw the first two take twice as long as the last two).
 */
async function settle(adminUrl: string): Promise<number> {
  const conn = await connectLegacy(adminUrl, { database: null });
  const started = Date.now();
  try {
    const [setting] = await conn.query<{ pct: number }[]>(
      'SELECT @@innodb_max_dirty_pages_pct AS pct',
    );
    await conn.query('SET GLOBAL innodb_max_dirty_pages_pct = 0');
    try {
      while (Date.now() - started < SETTLE_LIMIT_MS) {
        const rows = await conn.query<{ Variable_name: string; Value: string }[]>(
          `SHOW GLOBAL STATUS WHERE Variable_name IN
            ('Innodb_buffer_pool_pages_dirty', 'Innodb_history_list_length')`,
        );
        if (rows.every((row) => Number(row.Value) < 100)) break;
        await sleep(500);
      }
    } finally {
      await conn.query('SET GLOBAL innodb_max_dirty_pages_pct = ?', [setting?.pct ?? 90]);
    }
    return (Date.now() - started) / 1000;
  } finally {
    await conn.end();
  }
}

/** Rows/s of `dashboard`'s first load into a new read model, with `source`. */
async function backfillRate(
  servers: ServerUrls,
  source: SyncSource,
  dashboard: ThrowawayEnvironment,
  rows: number,
): Promise<number> {
  const env = await benchEnvironment(`benchsrc_${source}`, servers);
  let worker: Started | undefined;
  try {
    worker = await startWorker(workerVariables(env, source, dashboard.legacyReadOnlyUrl), {
      built: true,
    });
    const seconds = await timeFirstLoad(env.databaseUrl, worker);
    console.log(`  ${source}: backfill ${rows} rows in ${seconds.toFixed(1)} s`);
    return rows / seconds;
  } finally {
    await releaseInTurn(
      () => worker?.stop(),
      () => env.destroy(),
    );
  }
}

/** The server's Questions counter: every statement a client sent (pings and prepares aside). */
async function questions(conn: Awaited<ReturnType<typeof connectLegacy>>): Promise<number> {
  const rows = await conn.query<{ Value: string }[]>("SHOW GLOBAL STATUS LIKE 'Questions'");
  return Number(rows[0]?.Value ?? 0);
}

/** The legacy server's queries per second over `seconds`, less this probe's own statement. */
async function queriesAtRest(adminUrl: string, seconds: number): Promise<number> {
  const conn = await connectLegacy(adminUrl, { database: null });
  try {
    const before = await questions(conn);
    const started = Date.now();
    await sleep(seconds * 1000);
    const after = await questions(conn);
    // One of the two probes falls between the readings, whichever of them counts itself.
    return (after - before - 1) / ((Date.now() - started) / 1000);
  } finally {
    await conn.end();
  }
}

/**
 * Each marker's read-model transaction start (its row's `changed_at`, the feed trigger's now():
 * the apply began after the change was learnt of and its row read again) and its webhook event's
 * creation (the dispatch transaction's start), in ms since the epoch; the same clock as this
 * process's.
 */
async function markerTimes(pool: pg.Pool, subscriptionId: number) {
  const { rows } = await pool.query<{ marker: string; applied: Date; created: Date | null }>(
    `WITH changed (marker, applied) AS (
       SELECT address, changed_at FROM members WHERE address LIKE 'lag-%'
       UNION ALL SELECT description, changed_at FROM financial_transactions WHERE description LIKE 'lag-%'
       UNION ALL SELECT access_method, changed_at FROM presence_records WHERE access_method LIKE 'lag-%'
       UNION ALL SELECT title, changed_at FROM notifications WHERE title LIKE 'lag-%')
     SELECT c.marker, c.applied, min(e.created_at) AS created FROM changed c
       LEFT JOIN webhook_events e ON e.subscription_id = $1
         AND substring(e.body FROM '"(lag-[0-9]+)"') = c.marker
      GROUP BY c.marker, c.applied`,
    [subscriptionId],
  );
  return new Map(
    rows.map((r) => [r.marker, { applied: r.applied.getTime(), created: r.created?.getTime() }]),
  );
}

/** p50 and p99 of `stage` over the markers it applies to, for the profile line. */
function stageFigures(markers: string[], stage: (marker: string) => number | undefined): string {
  const values = markers
    .map(stage)
    .filter((v): v is number => v !== undefined && Number.isFinite(v))
    .sort((a, b) => a - b);
  return `${percentile(values, 50)}/${percentile(values, 99)}`;
}

/** At rest, then under load, on a synced dashboard of `lagScale` with one webhook subscription. */
async function restAndLoad(
  servers: ServerUrls,
  source: SyncSource,
  options: SourcesOptions,
): Promise<Omit<SourceFigures, 'backfillRowsPerSecond'>> {
  const env = await benchEnvironment(`benchsrc_${source}`, servers);
  const partner = await startPartner();
  const readModel = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  let worker: Started | undefined;
  try {
    await grantReplication(env);
    const conn = await connectLegacy(env.legacyUrl);
    // The same seed for both sources: the same dashboard.
    await generateLegacyData(conn, { scale: options.lagScale, seed: 3 });
    await conn.end();
    const variables = workerVariables(env, source, env.legacyReadOnlyUrl);
    worker = await startWorker(variables, { built: true });
    await timeFirstLoad(env.databaseUrl, worker);
    // The log is followed once the first loads are done; a pass of reconciliation begins then.
    await sleep(5000);
    const { subscription } = await subscribePartner(readModel, variables, partner.url);

    const rest = await queriesAtRest(servers.mysqlUrl, options.restSeconds);
    console.log(`  ${source}: at rest ${rest.toFixed(1)} legacy queries/s`);
    const lags = await measureVisibility(env.legacyUrl, readModel, options);
    // Deliveries still under way when the last change became visible.
    await sleep(5000);
    const hooks = commitToReceived(lags.committedAt, partner);
    const received = {
      p50: percentile(hooks, 50),
      p99: percentile(hooks, 99),
      missing: hooks.filter((ms) => ms === Infinity).length,
    };
    // Where a webhook's time goes: the sync (commit → visible) or the dispatch and delivery after
    // it (visible → received; negative when the partner heard before the watcher's next look).
    const afterVisible = [...lags.seenAt]
      .map(([marker, at]) => (partner.firstSeen.get(marker) ?? Infinity) - at)
      .sort((a, b) => a - b);
    const first = Math.min(...lags.committedAt.values());
    const late = new Set(
      [...lags.committedAt]
        .filter(
          ([marker, at]) => (partner.firstSeen.get(marker) ?? Infinity) - at > GOAL_RECEIVED_P99_MS,
        )
        .map(([, at]) => Math.floor((at - first) / 1000)),
    );
    console.log(
      `  ${source}: commit → webhook received p50 ${received.p50} ms, p99 ${received.p99} ms` +
        (received.missing ? `, ${received.missing} never received` : '') +
        `; visible → received p50 ${percentile(afterVisible, 50)} ms, p99 ${percentile(afterVisible, 99)} ms` +
        // Bunched in a few seconds of the load, slow ones point at a stall rather than a pace.
        (late.size > 0 && late.size <= Math.max(1, options.seconds / 10)
          ? `; received after ${GOAL_RECEIVED_P99_MS} ms: changes of seconds ${[...late].join(', ')} of the load`
          : ''),
    );
    // Where the time goes, p50/p99 ms per stage: the read model's and the feed's own clocks.
    const times = await markerTimes(readModelPool(readModel), subscription.id);
    const markers = [...lags.committedAt.keys()];
    const at = (m: string) => times.get(m);
    console.log(
      `  ${source}: profile p50/p99 ms: commit → read-model write began ` +
        stageFigures(markers, (m) => (at(m)?.applied ?? NaN) - lags.committedAt.get(m)!) +
        `, → seen by the watcher ` +
        stageFigures(markers, (m) => (lags.seenAt.get(m) ?? NaN) - (at(m)?.applied ?? NaN)) +
        `; write began → webhook event created ` +
        stageFigures(markers, (m) => (at(m)?.created ?? NaN) - (at(m)?.applied ?? NaN)) +
        `, → received ` +
        stageFigures(markers, (m) => (partner.firstSeen.get(m) ?? NaN) - (at(m)?.created ?? NaN)),
    );
    return {
      restQueriesPerSecond: rest,
      visible: { p50: lags.p50, p99: lags.p99, missing: lags.missing },
      received,
    };
  } finally {
    await releaseInTurn(
      () => worker?.stop(),
      () => partner.close(),
      () => readModel.$disconnect(),
      () => env.destroy(),
    );
  }
}

const ms = (n: number) => (Number.isFinite(n) ? `${Math.round(n)} ms` : 'never');
const ratio = (binlog: number, poll: number) =>
  poll > 0 && Number.isFinite(binlog) && Number.isFinite(poll)
    ? `${(binlog / poll).toFixed(2)}×`
    : '-';

function printTable(figures: Record<SyncSource, SourceFigures>, options: SourcesOptions) {
  const { poll, binlog } = figures;
  const met = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const backfillRatio = binlog.backfillRowsPerSecond / poll.backfillRowsPerSecond;
  /** One figure of both sources, their ratio and its goal. */
  const line = (
    label: string,
    figure: (f: SourceFigures) => number,
    format: (value: number) => string,
    goal = '',
  ): [string, string, string, string, string] => [
    label,
    format(figure(poll)),
    format(figure(binlog)),
    ratio(figure(binlog), figure(poll)),
    goal,
  ];
  const whole = (value: number) => Math.round(value).toString();
  const lines = [
    line('commit → read model p50', (f) => f.visible.p50, ms),
    line(
      'commit → read model p99',
      (f) => f.visible.p99,
      ms,
      `≤ ${GOAL_VISIBLE_P99_MS} ms with the log: ${met(binlog.visible.p99 <= GOAL_VISIBLE_P99_MS && binlog.visible.missing === 0)}`,
    ),
    line('commit → webhook received p50', (f) => f.received.p50, ms),
    line(
      'commit → webhook received p99',
      (f) => f.received.p99,
      ms,
      `≤ ${GOAL_RECEIVED_P99_MS} ms with the log: ${met(binlog.received.p99 <= GOAL_RECEIVED_P99_MS && binlog.received.missing === 0)}`,
    ),
    line(
      'legacy queries/s at rest',
      (f) => f.restQueriesPerSecond,
      (v) => v.toFixed(1),
    ),
    line(
      'backfill rows/s',
      (f) => f.backfillRowsPerSecond,
      whole,
      `at most ${GOAL_BACKFILL_RATIO * 100} % slower than polling: ${met(backfillRatio >= 1 - GOAL_BACKFILL_RATIO)}`,
    ),
  ];
  const header: (typeof lines)[number] = ['', 'poll', 'binlog', 'binlog/poll', 'goal'];
  const widths = header.map((_, i) => Math.max(...[header, ...lines].map((l) => l[i]!.length)));
  const row = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(
    `\nsources, ${options.rate} changes/s for ${options.seconds} s, at rest over ${options.restSeconds} s:`,
  );
  console.log(row(header.slice(0, 4)) + '  goal');
  for (const line of lines) console.log(row(line.slice(0, 4)) + (line[4] ? `  ${line[4]}` : ''));
  const missing = SYNC_SOURCES.map((s) => {
    const f = figures[s];
    return f.visible.missing || f.received.missing
      ? `${s}: ${f.visible.missing} never visible, ${f.received.missing} never received`
      : '';
  }).filter(Boolean);
  if (missing.length) console.log(`  missing: ${missing.join('; ')}`);
}

export async function benchSources(options: SourcesOptions) {
  // Built once: the workers start without each checking the build again.
  buildIfStale();
  // 128 MB of buffer pool, as the shared server: the backfill reads a million rows.
  const server = await SpareMariaDb.start({ binaryLog: true, bufferPoolMb: 128 });
  const forget = onInterrupt(() => server.destroy());
  const servers: ServerUrls = { ...serverUrlsOf(loadConfig()), mysqlUrl: server.url };
  let dashboard: ThrowawayEnvironment | undefined;
  try {
    dashboard = await benchEnvironment('benchsrc_backfill', servers);
    await grantReplication(dashboard);
    const conn = await connectLegacy(dashboard.legacyUrl);
    const generatedAt = Date.now();
    const counts = await generateLegacyData(conn, { scale: options.scale, seed: 1 });
    await conn.end();
    const rows = Object.values(counts).reduce((a, b) => a + b, 0);
    const generatedIn = (Date.now() - generatedAt) / 1000;
    const settledIn = await settle(server.url);
    console.log(
      `generated ${rows} legacy rows in ${generatedIn.toFixed(1)} s on a private MariaDB writing its ` +
        `binary log; written out and purged ${settledIn.toFixed(1)} s later`,
    );
    // Twice each, in the order poll, binlog, binlog, poll: what changes along the run (the server's
    // caches warming, the machine's other load) weighs on both alike; each source's figure is the
    // mean of its two.
    const rates: Record<SyncSource, number[]> = { poll: [], binlog: [] };
    for (const source of [...SYNC_SOURCES, ...SYNC_SOURCES.toReversed()]) {
      rates[source].push(await backfillRate(servers, source, dashboard, rows));
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const backfill = { poll: mean(rates.poll), binlog: mean(rates.binlog) };
    await dashboard.destroy();
    dashboard = undefined;

    const figures = {} as Record<SyncSource, SourceFigures>;
    for (const source of SYNC_SOURCES) {
      console.log(`${source}: at rest, then ${options.rate} changes/s for ${options.seconds} s`);
      figures[source] = {
        backfillRowsPerSecond: backfill[source],
        ...(await restAndLoad(servers, source, options)),
      };
    }
    printTable(figures, options);
    return figures;
  } finally {
    await releaseInTurn(
      () => dashboard?.destroy(),
      () => server.destroy(),
      forget,
    );
  }
}
