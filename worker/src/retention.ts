// Rows the API stores because of traffic are deleted once their retention has passed, so storage
// grows with the dashboard's data, never with traffic or time (docs/operations/configure.md,
// "Retention").
// Every worker runs it, whatever its roles: the deletes are idempotent, several workers at once
// only share the work. It works in pieces with rests: each statement deletes a small batch (a few
// tens of ms), each is followed by a rest as long as it took, so a purge holds at most half a
// database core and no request queues behind it; and it runs every minute at most, so each run
// has a minute's rows to delete, not a quarter of an hour's (docs/decisions/0018).
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { EVENT_STATUSES } from '#api/webhooks/vocabulary.js';
import type { ThrottledLog } from '#common/log-throttle.js';

/**
 * Rows one statement deletes at most. 5,000 took about a quarter of a second for webhook events
 * (their tries go with them) and stalled the answers served meanwhile; 500 stay well under 100 ms.
 */
const BATCH = 500;
/** The longest pause between two purges; short retentions (tests, the soak) are purged more often. */
const MAX_INTERVAL_MS = 60_000;

interface Purge {
  name: string;
  retentionMs: number;
  /** Deletes at most $2 rows past the retention of $1 ms; returns the row count. */
  statement: string;
}

/**
 * Token pairs whose refresh token has expired (the access token expires before it), or that were
 * revoked or rotated, past TOKEN_RETENTION_DAYS. Reuse detection needs a rotated pair only while
 * its refresh token could still be presented; one presented after its row is gone is simply
 * unknown: 401 all the same.
 */
const tokens = (retentionMs: number): Purge => ({
  name: 'tokens',
  retentionMs,
  statement: `DELETE FROM api_tokens WHERE id IN (
      SELECT id FROM api_tokens
       WHERE refresh_expires_at < now() - make_interval(secs => $1::float8 / 1000)
      UNION
      SELECT id FROM api_tokens
       WHERE revoked_at < now() - make_interval(secs => $1::float8 / 1000)
      LIMIT $2)`,
});

/**
 * Member write audit records past AUDIT_RETENTION_DAYS, oldest first through the index on `at`.
 * Nothing reads the table on a request's path, and each batch locks only the rows it deletes.
 */
const audit = (retentionMs: number): Purge => ({
  name: 'audit',
  retentionMs,
  statement: `DELETE FROM member_write_audit WHERE id IN (
      SELECT id FROM member_write_audit
       WHERE at < now() - make_interval(secs => $1::float8 / 1000)
       ORDER BY at LIMIT $2)`,
});

/**
 * Operator audit records (the console's and the CLI's actions, docs/decisions/0019-console.md)
 * past the same AUDIT_RETENTION_DAYS, oldest first through the index on `at`.
 */
const operatorAudit = (retentionMs: number): Purge => ({
  name: 'operator_audit',
  retentionMs,
  statement: `DELETE FROM operator_audit WHERE id IN (
      SELECT id FROM operator_audit
       WHERE at < now() - make_interval(secs => $1::float8 / 1000)
       ORDER BY at LIMIT $2)`,
});

/** Every final state of a webhook event: one that will not be tried again unless replayed. */
const FINAL_EVENT_STATES = EVENT_STATUSES.filter((status) => status !== 'pending')
  .map((status) => `'${status}'`)
  .join(', ');

/**
 * Webhook events no longer pending, past WEBHOOK_RETENTION_DAYS, and with them their tries (the
 * foreign key cascades). A finished event's next_attempt_at is when it finished: its last try
 * records it (worker/src/webhooks/delivery/record.ts); replay and enable set it anew with the status.
 * The state is checked again on the row deleted, so an event replayed meanwhile stays. Pending
 * events stay whatever their age: they are still owed to the partner.
 */
const webhookEvents = (retentionMs: number): Purge => ({
  name: 'webhook_events',
  retentionMs,
  statement: `DELETE FROM webhook_events WHERE status IN (${FINAL_EVENT_STATES}) AND id IN (
      SELECT id FROM webhook_events
       WHERE status IN (${FINAL_EVENT_STATES})
         AND next_attempt_at < now() - make_interval(secs => $1::float8 / 1000)
       LIMIT $2)`,
});

/**
 * Usage counts past USAGE_RETENTION_DAYS, an hour once it has ended that long ago, oldest first
 * through the index on `hour`. The delete's triggers take the same hours off usage_days in the
 * same statement, which about doubles its time; BATCH is small enough for that too.
 */
const usageHours = (retentionMs: number): Purge => ({
  name: 'usage_hours',
  retentionMs,
  statement: `DELETE FROM usage_hours WHERE ctid IN (
      SELECT ctid FROM usage_hours
       WHERE hour < now() - make_interval(secs => $1::float8 / 1000) - interval '1 hour'
       ORDER BY hour LIMIT $2)`,
});

/**
 * The usage merge's ledger (worker/src/usage/usage-merge.ts): a batch's name is needed only
 * while the batch may still be in Redis, which is minutes; a week leaves room for any stall.
 */
const USAGE_LEDGER_MS = 7 * 86_400_000;
const usageMerges: Purge = {
  name: 'usage_merges',
  retentionMs: USAGE_LEDGER_MS,
  statement: `DELETE FROM usage_merges WHERE batch IN (
      SELECT batch FROM usage_merges
       WHERE merged_at < now() - make_interval(secs => $1::float8 / 1000)
       LIMIT $2)`,
};

/** How long each kind of row is kept. */
export interface Retention {
  tokensMs: number;
  auditMs: number;
  webhookEventsMs: number;
  usageMs: number;
}

export interface PurgeOptions {
  /** Ends the purge at its next rest (a stopping worker). */
  signal?: AbortSignal;
}

/**
 * Deletes whatever has passed its retention, a batch a statement, each followed by a rest as long
 * as it took; returns the rows deleted per kind.
 */
export async function purgeExpired(
  pool: pg.Pool,
  retention: Retention,
  options: PurgeOptions = {},
): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  const purges = [
    tokens(retention.tokensMs),
    audit(retention.auditMs),
    operatorAudit(retention.auditMs),
    webhookEvents(retention.webhookEventsMs),
    usageHours(retention.usageMs),
    usageMerges,
  ];
  for (const purge of purges) {
    let total = 0;
    for (;;) {
      const started = Date.now();
      const { rowCount } = await pool.query(purge.statement, [purge.retentionMs, BATCH]);
      total += rowCount ?? 0;
      await sleep(Date.now() - started, undefined, { signal: options.signal });
      if ((rowCount ?? 0) < BATCH) break;
    }
    deleted[purge.name] = total;
  }
  return deleted;
}

export function startRetention(deps: { pool: pg.Pool; retention: Retention; log: ThrottledLog }): {
  stop(): void;
} {
  const { tokensMs, auditMs, webhookEventsMs, usageMs } = deps.retention;
  const shortest = Math.min(tokensMs, auditMs, webhookEventsMs, usageMs);
  // Every twentieth of the shortest retention, so a run deletes a small share of what is kept.
  const intervalMs = Math.min(MAX_INTERVAL_MS, Math.max(1000, shortest / 20));
  const stopping = new AbortController();
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      await purgeExpired(deps.pool, deps.retention, { signal: stopping.signal });
    } catch (error) {
      if (!stopping.signal.aborted) {
        deps.log('warn', 'retention', { err: error }, 'retention purge failed; tried again later');
      }
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  void run();
  return {
    stop() {
      clearInterval(timer);
      stopping.abort();
    },
  };
}
