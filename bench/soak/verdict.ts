// The soak's verdict, one line per acceptance point: from the end of the first retention period
// to the end, RSS, database size and Redis memory within ±10 % of their value then; p99 judged by
// its trend, the last third of that time against the first, at most 20 % above, for the reads
// together and each group with enough answers (with faults, outside each outage and the minute
// after it); no statement of the worker over 100 ms; no 5xx (with faults: none outside the
// outages), sync:verify 0, every webhook ledger balanced, each feed copy equal to the lists;
// then storage per million changes and per million requests.
import type { Ledger } from './checks.js';
import type { Outage } from './faults.js';
import type { Crash } from './supervised.js';
import type { CopyComparison, Sample } from './messages.js';
import { percentile } from '../lag-writes.js';
import { isServerError, mb, type Snapshot } from './measure.js';
import { RETENTION_MINUTES } from './setup.js';
import { backgroundOf, SLOW_STATEMENT_MS, type SlowStatement } from './slow-statements.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';

const STEADY_SHARE = 0.1;
const P99_RISE = 0.2;
/**
 * A group's p99 is judged only with this many answers since the reference: with fewer, 1 % of a
 * third is a few dozen answers, and a single stall of the machine moves it.
 */
const P99_JUDGED_ANSWERS = 10_000;
/** The groups that are not reads: token requests and member writes. */
const NOT_READS = new Set(['auth', 'member writes']);
/**
 * Past this busy share of the machine's cores, answers wait for a core: a p99 then measures that
 * queue, which a slower machine (or a neighbour's load) lengthens, more than the product.
 */
const HEADROOM_BUSY_PERCENT = 75;
/** After an outage ends, clients may still meet its effects (pools reconnecting) this long. */
export const RECOVERY_MS = 10_000;
/**
 * With faults, p99 is judged on the answers outside each outage and the minute after it: a
 * restarted process compiles its hot paths again, and the worker works off what waited.
 */
const P99_AFTERMATH_MS = 60_000;

export interface Ending {
  /** When the load began and when it ended (epoch ms). */
  started: number;
  ended: number;
  snapshots: Snapshot[];
  /** The snapshot taken at the end of the first retention period (or the first one). */
  reference: Snapshot;
  samples: Sample[];
  outages: Outage[];
  verifyDifferences: number;
  ledgers: Ledger[];
  comparisons: CopyComparison[];
  crashes: Crash[];
  /** Statements PostgreSQL took over 100 ms to run since the load began. */
  slowStatements: SlowStatement[];
}

const verdict = (ok: boolean, text: string) => console.log(`  ${ok ? 'PASS' : 'FAIL'} ${text}`);
const percent = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;

/** The reference snapshot and every one after it: what the flat-line checks judge. */
const sinceReference = (e: Ending) => e.snapshots.filter((s) => s.at >= e.reference.at);

/**
 * The largest relative departure of `value` over each span from the span's first snapshot: one
 * span since the reference, or, for a process a fault restarted, one per life of the process.
 */
function departure(spans: Snapshot[][], value: (s: Snapshot) => number | undefined) {
  const moves = spans.flatMap((span) =>
    span.map((s) => (value(s) ?? NaN) / (value(span[0]!) ?? NaN) - 1).filter(Number.isFinite),
  );
  const worst = moves.reduce((w, m) => (Math.abs(m) > Math.abs(w) ? m : w), 0);
  return { worst, measured: moves.length };
}

function steady(
  e: Ending,
  name: string,
  value: (s: Snapshot) => number | undefined,
  unit = '',
  spans = [sinceReference(e)],
) {
  const d = departure(spans, value);
  const restarted = spans
    .slice(1)
    .map((span) => `; after its restart, against the report at ${minuteOf(e, span[0]!.at)} min`)
    .join('');
  verdict(
    d.measured > 0 && Math.abs(d.worst) <= STEADY_SHARE,
    `${name}: ${value(e.reference)?.toFixed(1) ?? 'n/a'}${unit} at the reference, at most ${percent(d.worst)} since${restarted} (±10 %)`,
  );
}

const minuteOf = (e: Ending, at: number) => ((at - e.started) / 60_000).toFixed(1);

/**
 * A process a fault killed is started again as a new process, with a new heap: its RSS is judged
 * from the first report after each restart, against that report, not against the process before.
 */
function livesOf(e: Ending, process: string): Snapshot[][] {
  const restarts = e.outages
    .filter((o) => o.restarted === process && o.end > e.reference.at)
    .map((o) => o.end);
  const bounds = [e.reference.at, ...restarts, Infinity];
  return bounds
    .slice(1)
    .map((end, i) => sinceReference(e).filter((s) => s.at >= bounds[i]! && s.at < end))
    .filter((span) => span.length > 0);
}

/** p99 (ms) of the answered samples. */
function p99Of(samples: Sample[]): number {
  const ms = samples.filter(([, , , status]) => status !== 0).map(([, , latency]) => latency);
  return percentile(
    ms.sort((a, b) => a - b),
    99,
  );
}

/**
 * p99 by its trend: the time since the reference in thirds, the last third's p99 at most 20 %
 * above the first third's. Against the reference's report alone, one stall in either window
 * decided the line; thirds of the run hold tens of thousands of answers each.
 */
function printP99Trend(e: Ending, faults: boolean): void {
  const third = (e.ended - e.reference.at) / 3;
  const aside = (at: number) => faults && inOutage(e.outages, at, P99_AFTERMATH_MS);
  const after = e.samples.filter(([at]) => at >= e.reference.at && at < e.ended && !aside(at));
  const minute = (at: number) => minuteOf(e, at);
  console.log(
    `  p99 by trend: minutes ${minute(e.reference.at)}–${minute(e.reference.at + third)} ` +
      `against ${minute(e.ended - third)}–${minute(e.ended)}` +
      (faults ? `, each outage and the ${P99_AFTERMATH_MS / 1000} s after it aside` : ''),
  );
  const judge = (name: string, samples: Sample[]) => {
    const first = p99Of(samples.filter(([at]) => at < e.reference.at + third));
    const last = p99Of(samples.filter(([at]) => at >= e.ended - third));
    const rise = last / first - 1;
    const answers = samples.filter(([, , , status]) => status !== 0).length;
    const text = `p99 ${name}: ${first.toFixed(1)} → ${last.toFixed(1)} ms (${percent(rise)}, ≤ +20 %; ${answers} answers)`;
    if (answers < P99_JUDGED_ANSWERS)
      console.log(`  NOTE ${text}, under ${P99_JUDGED_ANSWERS}: not judged`);
    else verdict(Number.isFinite(rise) && rise <= P99_RISE, text);
  };
  judge(
    'reads together',
    after.filter(([, group]) => !NOT_READS.has(group)),
  );
  const groups = [...new Set(after.map(([, group]) => group))].sort();
  for (const group of groups)
    judge(
      group,
      after.filter(([, g]) => g === group),
    );
}

/** Within an outage, or within `afterMs` of its end. */
const inOutage = (outages: Outage[], at: number, afterMs = RECOVERY_MS) =>
  outages.some((o) => at >= o.start && at <= o.end + afterMs);

export function printVerdict(e: Ending, faults: boolean): void {
  const minutes = ((e.reference.at - e.started) / 60_000).toFixed(1);
  console.log(
    `\nverdict (reference: the report at ${minutes} min, the first after every kind of row has been through its first retention period, or the first of a shorter run)`,
  );
  for (const name of Object.keys(e.reference.rssMb))
    steady(e, `${name} RSS`, (s) => s.rssMb[name], ' MB', livesOf(e, name));
  steady(e, 'PostgreSQL size', (s) => s.databaseBytes / 1048576, ' MB');
  steady(e, 'Redis used_memory', (s) => s.redisBytes / 1048576, ' MB');
  printP99Trend(e, faults);
  const background = backgroundOf(e.slowStatements);
  verdict(
    background.length === 0,
    `background statements over ${SLOW_STATEMENT_MS} ms: ${background.length}` +
      (background.length
        ? ` (longest ${Math.max(...background.map((s) => s.ms)).toFixed(0)} ms)`
        : ''),
  );
  const busy = sinceReference(e)
    .map((s) => s.cpuPercent.machine ?? NaN)
    .filter(Number.isFinite);
  const busiest = Math.max(...busy);
  console.log(
    `  NOTE the machine was busy at most ${busiest.toFixed(0)} % of its cores since the reference: ` +
      (busiest <= HEADROOM_BUSY_PERCENT
        ? `headroom (≤ ${HEADROOM_BUSY_PERCENT} %), so the p99 lines measure the product`
        : `past ${HEADROOM_BUSY_PERCENT} % answers queue for a core, and the p99 lines measure that queue more than the product`),
  );
  const failed = e.samples.filter(([, , , status]) => isServerError(status) || status === 0);
  if (faults) {
    const outside = failed.filter(([at]) => !inOutage(e.outages, at));
    verdict(
      outside.length === 0,
      `5xx or no answer outside the outages: ${outside.length}; inside them: ${failed.length - outside.length}`,
    );
    for (const o of e.outages) {
      const inside = failed.filter(([at]) => at >= o.start && at <= o.end + RECOVERY_MS);
      console.log(
        `    ${o.what}: ${new Date(o.start).toISOString()} – ${new Date(o.end).toISOString()} ` +
          `(${((o.end - o.start) / 1000).toFixed(1)} s, + ${RECOVERY_MS / 1000} s counted): ` +
          `${inside.filter(([, , , s]) => s >= 500).length} 5xx, ${inside.filter(([, , , s]) => s === 0).length} without an answer`,
      );
    }
  } else {
    verdict(failed.length === 0, `5xx or no answer over the run: ${failed.length}`);
  }
  verdict(
    e.crashes.length === 0,
    `processes that exited on their own: ${e.crashes.length}` +
      e.crashes
        .map((c) => ` (${c.what}, ${c.how}, at ${((c.at - e.started) / 1000).toFixed(0)} s)`)
        .join(''),
  );
  verdict(e.verifyDifferences === 0, `sync:verify: ${e.verifyDifferences} differences`);
  for (const l of e.ledgers) {
    verdict(
      l.balanced && l.deliveredUnreceived === 0,
      `webhook ledger of subscription ${l.subscription}: ${l.balanced ? 'balanced' : 'NOT balanced'}, ` +
        `${l.deliveredUnreceived} counted delivered but never answered 2xx by the partner`,
    );
  }
  for (const c of e.comparisons) {
    verdict(
      c.missing + c.extra + c.different === 0,
      `feed copy (${c.follower}): ${c.copied} rows against ${c.listed} listed; ${c.missing} missing, ` +
        `${c.extra} extra, ${c.different} different${c.examples.length ? ` (${c.examples.join(', ')})` : ''}; ` +
        `${c.expired} cursors expired`,
    );
  }
  printStorage(e);
}

/**
 * What the API keeps because of changes and of requests: its own tables, the dashboard's copy
 * aside (that follows the club's data, which the writer keeps at about one size).
 */
const KEPT_FOR_CHANGES = [
  'webhook_events',
  'webhook_attempts',
  'member_write_audit',
  'sync_tombstones',
  'change_departures',
  'kept_counts',
  'kept_totals',
  'kept_day_sums',
];
const KEPT_FOR_REQUESTS = ['api_tokens', 'usage_hours', 'usage_days', 'usage_merges'];

function printStorage(e: Ending): void {
  const end = e.snapshots.at(-1)!;
  const sum = (s: Snapshot, tables: readonly string[]) =>
    tables.reduce((total, t) => total + (s.tables[t] ?? 0), 0);
  const copied = SYNC_TABLES.map((t) => t.name);
  const grown = Object.keys(end.tables)
    .map((t): [string, number] => [t, end.tables[t]! - (e.reference.tables[t] ?? 0)])
    .sort(([, a], [, b]) => b - a)
    .slice(0, 6)
    .map(([t, bytes]) => `${t} ${bytes >= 0 ? '+' : ''}${mb(bytes)}`);
  console.log(
    `\nstorage: PostgreSQL ${mb(e.reference.databaseBytes)} at the reference → ${mb(end.databaseBytes)} ` +
      `(${mb(end.databaseBytes - e.reference.databaseBytes)}); the dashboard's copy ` +
      `${mb(sum(e.reference, copied))} → ${mb(sum(end, copied))}; grew most: ${grown.join(', ')}`,
  );
  // Kept at the end for what the last retention period brought: bytes per million of each.
  const windowStart =
    e.snapshots.findLast((s) => s.at <= end.at - RETENTION_MINUTES * 60_000) ?? e.reference;
  const changes = end.changes - windowStart.changes;
  const requests = end.requests - windowStart.requests;
  const perMillion = (bytes: number, count: number) => mb((bytes / Math.max(1, count)) * 1e6);
  console.log(
    `kept by the API at the end, for ${changes} changes and ${requests} requests of the last ` +
      `${RETENTION_MINUTES} min: ${mb(sum(end, KEPT_FOR_CHANGES))} by changes ` +
      `(${KEPT_FOR_CHANGES.filter((t) => end.tables[t]).join(', ')}), ` +
      `${perMillion(sum(end, KEPT_FOR_CHANGES), changes)} per million changes; ` +
      `${mb(sum(end, KEPT_FOR_REQUESTS))} by requests (${KEPT_FOR_REQUESTS.join(', ')}), ` +
      `${perMillion(sum(end, KEPT_FOR_REQUESTS), requests)} per million requests`,
  );
}
