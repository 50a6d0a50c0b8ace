// What the soak reads every report: each process's RSS, PostgreSQL's size and its largest
// tables, Redis's memory by kind of key, webhook events pending (by subscription), and the answers'
// and sync lag's percentiles over the interval. A figure that cannot be read (its server
// restarting) is NaN, printed `n/a`.
import { Redis } from 'ioredis';
import pg from 'pg';
import { percentile } from '../lag-writes.js';
import type { Sample } from './messages.js';

export interface Snapshot {
  /** Epoch ms. */
  at: number;
  rssMb: Record<string, number>;
  /** Share of one core each process used over the interval, and the machine's busy share of all. */
  cpuPercent: Record<string, number>;
  databaseBytes: number;
  /** Every table's size with its indexes and TOAST, bytes. */
  tables: Record<string, number>;
  redisBytes: number;
  redisKeys: number;
  /**
   * The bench prefix's keys by kind (the name's next segment, `rl`, `usage`…; a queue's keys by
   * what they hold: `queue job` for a job's hash, `queue events`, `queue completed`…), with the
   * bytes Redis holds for them, the largest first.
   */
  redisKinds: [kind: string, keys: number, bytes: number][];
  webhooksPending: number;
  /** Of those, each subscription's, and how many of them are retries (a try made before). */
  webhooksPendingBySubscription: Record<string, { pending: number; retries: number }>;
  /** Autovacuum and autoanalyze runs per table since the previous report (for the tails). */
  vacuums: Record<string, number>;
  /** Per group: answers, p50 and p99 (ms) over the interval. */
  groups: Record<string, { count: number; p50: number; p99: number }>;
  /** Answers 5xx, and requests without an answer, over the interval. */
  serverErrors: number;
  unanswered: number;
  /** Answers other than 2xx by group and status, e.g. `members 503` → 12. */
  refusals: Record<string, number>;
  /** Answers slower than SLOW_MS, per minute of the interval: when the tail came. */
  slowByMinute: number[];
  lagP99Ms: number;
  reconciledLagP99Ms: number;
  lagCount: number;
  /** Since the start: changes made (legacy and API writes) and requests answered or not. */
  changes: number;
  requests: number;
}

/** An answer this slow counts in a report's minute-by-minute line. */
export const SLOW_MS = 100;

export const mb = (bytes: number) =>
  Number.isNaN(bytes) ? 'n/a' : `${(bytes / 1048576).toFixed(1)} MB`;
const ms = (value: number) => (Number.isNaN(value) ? 'n/a' : `${value.toFixed(0)} ms`);

/** The bench's connections to the servers it measures. */
export function openProbes(databaseUrl: string, redisUrl: string, redisPrefix: string) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  pool.on('error', () => undefined);
  // Fails fast while Redis is away rather than queueing: the figure is then n/a.
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', () => undefined);
  /** Each table's autovacuum plus autoanalyze count at the previous report. */
  const vacuumedBefore = new Map<string, number>();

  async function storage() {
    const { rows } = await pool.query<{ name: string; bytes: string }>(
      `(SELECT '' AS name, pg_database_size(current_database())::text AS bytes)
       UNION ALL
       (SELECT c.relname, pg_total_relation_size(c.oid)::text FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p'))`,
    );
    const { rows: pending } = await pool.query<{ id: number; n: number; retries: number }>(
      `SELECT subscription_id AS id, count(*)::int AS n,
              (count(*) FILTER (WHERE attempts > 0))::int AS retries
         FROM webhook_events WHERE status = 'pending' GROUP BY subscription_id`,
    );
    const { rows: maintenance } = await pool.query<{ name: string; n: number }>(
      `SELECT relname AS name, (autovacuum_count + autoanalyze_count)::int AS n
         FROM pg_stat_user_tables`,
    );
    const vacuums: Record<string, number> = {};
    for (const { name, n } of maintenance) {
      const runs = n - (vacuumedBefore.get(name) ?? 0);
      if (runs > 0) vacuums[name] = runs;
      vacuumedBefore.set(name, n);
    }
    return {
      databaseBytes: Number(rows[0]!.bytes),
      tables: Object.fromEntries(rows.slice(1).map((r) => [r.name, Number(r.bytes)])),
      webhooksPending: pending.reduce((sum, p) => sum + p.n, 0),
      webhooksPendingBySubscription: Object.fromEntries(
        pending.map((p) => [String(p.id), { pending: p.n, retries: p.retries }]),
      ),
      vacuums,
    };
  }

  async function redisFigures() {
    const info = await redis.info('memory');
    const kinds = new Map<string, { keys: number; bytes: number }>();
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${redisPrefix}:*`, 'COUNT', 1000);
      const sizes = await Promise.all(found.map((key) => redis.memory('USAGE', key)));
      for (const [i, key] of found.entries()) {
        const kind = kindOf(key);
        const held = kinds.get(kind) ?? { keys: 0, bytes: 0 };
        kinds.set(kind, { keys: held.keys + 1, bytes: held.bytes + (sizes[i] ?? 0) });
      }
      cursor = next;
    } while (cursor !== '0');
    return {
      redisBytes: Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? NaN),
      redisKeys: [...kinds.values()].reduce((sum, k) => sum + k.keys, 0),
      redisKinds: [...kinds]
        .map(([kind, k]): [string, number, number] => [kind, k.keys, k.bytes])
        .sort(([, , a], [, , b]) => b - a)
        .slice(0, 5),
    };
  }

  return {
    storage: () =>
      storage().catch(() => ({
        databaseBytes: NaN,
        tables: {},
        webhooksPending: NaN,
        webhooksPendingBySubscription: {},
        vacuums: {},
      })),
    redis: () =>
      redisFigures().catch(() => ({
        redisBytes: NaN,
        redisKeys: NaN,
        redisKinds: [] as Snapshot['redisKinds'],
      })),
    close: async () => {
      redis.disconnect();
      await pool.end();
    },
  };
}

/** A queue's own keys; any other key under a queue is a job's (its hash, lock or logs). */
const QUEUE_KEYS = new Set(
  'id meta events wait paused active delayed prioritized completed failed stalled stalled-check limiter marker pc repeat de metrics'.split(
    ' ',
  ),
);

/**
 * `prefix:{sync-members}:42` is a `queue job` (BullMQ's queues are named in braces under the
 * prefix), `prefix:{webhooks}:events` a `queue events`, `prefix:rl:…` an `rl`.
 */
function kindOf(key: string): string {
  const segments = key.split(':');
  const [, kind = '', part = ''] = segments;
  if (!kind.startsWith('{')) return kind;
  return `queue ${segments.length === 3 && QUEUE_KEYS.has(part) ? part : 'job'}`;
}

/** Per group over the samples given: count, p50, p99. */
export function latencyByGroup(samples: Sample[]): Snapshot['groups'] {
  const byGroup = new Map<string, number[]>();
  for (const [, group, latency, status] of samples) {
    if (status === 0) continue;
    byGroup.set(group, [...(byGroup.get(group) ?? []), latency]);
  }
  const groups: Snapshot['groups'] = {};
  for (const [group, latencies] of [...byGroup].sort(([a], [b]) => a.localeCompare(b))) {
    latencies.sort((a, b) => a - b);
    groups[group] = {
      count: latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    };
  }
  return groups;
}

export const isServerError = (status: number) => status >= 500;

export function printSnapshot(s: Snapshot, title: string): void {
  const rss = Object.entries(s.rssMb)
    .map(([name, value]) => `${name} ${value.toFixed(0)} MB`)
    .join(', ');
  const cpu = Object.entries(s.cpuPercent)
    .map(([name, value]) => `${name} ${Number.isNaN(value) ? 'n/a' : value.toFixed(0)} %`)
    .join(', ');
  const largest = Object.entries(s.tables)
    .sort(([, a], [, b]) => b - a)
    .slice(0, 5)
    .map(([name, bytes]) => `${name} ${mb(bytes)}`)
    .join(', ');
  const refusals = Object.entries(s.refusals)
    .sort(([, a], [, b]) => b - a)
    .map(([key, n]) => `${key} ×${n}`)
    .join(', ');
  const groups = Object.entries(s.groups)
    .map(([group, g]) => `${group} ${g.p50.toFixed(1)}/${g.p99.toFixed(1)} (${g.count})`)
    .join(', ');
  console.log(
    `\n-- ${title}\n` +
      `  RSS: ${rss}\n` +
      `  CPU (of a core; the machine's of all): ${cpu}\n` +
      `  PostgreSQL: ${mb(s.databaseBytes)}; largest: ${largest || 'n/a'}\n` +
      `  Redis: used_memory ${mb(s.redisBytes)}, ` +
      `${Number.isNaN(s.redisKeys) ? 'n/a' : s.redisKeys} keys under the bench prefix` +
      `${s.redisKinds.length ? ` (${s.redisKinds.map(([kind, n, bytes]) => `${kind} ${n} ${mb(bytes)}`).join(', ')})` : ''}\n` +
      `  p50/p99 ms (answers): ${groups || 'none'}\n` +
      `  5xx: ${s.serverErrors}; no answer: ${s.unanswered}; other than 2xx by group and status: ` +
      `${refusals || 'none'}\n` +
      `  sync lag p99 (commit → visible): ${ms(s.lagP99Ms)} polled tables (${s.lagCount} changes), ` +
      `${ms(s.reconciledLagP99Ms)} notifications (no change column: by reconciliation)\n` +
      `  answers over ${SLOW_MS} ms, per minute: ${s.slowByMinute.join(', ') || 'none'}\n` +
      `  webhook events pending: ${Number.isNaN(s.webhooksPending) ? 'n/a' : s.webhooksPending}` +
      `${Object.entries(s.webhooksPendingBySubscription)
        .map(([id, p]) => `; subscription ${id} ${p.pending} (${p.retries} retries)`)
        .join('')}\n` +
      `  autovacuum/analyze runs: ${
        Object.entries(s.vacuums)
          .map(([table, n]) => `${table} ×${n}`)
          .join(', ') || 'none'
      }`,
  );
}
