// Rows the API stores because of traffic are deleted once their retention has passed, so storage
// grows with the dashboard's data, never with traffic or time (docs/operations.md, "Retention").
// Every worker runs it, whatever its roles: the deletes are idempotent, several workers at once
// only share the work, and each statement deletes a bounded batch so none holds locks for long.
import type pg from 'pg';
import { EVENT_STATUSES } from '#api/webhooks/vocabulary.js';
import type { ThrottledLog } from '#common/log-throttle.js';

/** Rows one statement deletes at most. */
const BATCH = 5000;
/** The longest pause between two purges; short retentions (tests) are purged more often. */
const MAX_INTERVAL_MS = 15 * 60_000;

interface Purge {
  name: string;
  retentionMs: number;
  /** Deletes at most $2 rows past the retention of $1 ms; returns the row count. */
  statement: string;
  /** Rows one statement deletes at most, when not BATCH. */
  batch?: number;
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
 * records it (worker/src/webhooks/delivery.ts); replay and enable set it anew with the status.
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
 * same statement, which about doubles its time: a smaller batch keeps it well under 100 ms.
 */
const usageHours = (retentionMs: number): Purge => ({
  name: 'usage_hours',
  retentionMs,
  batch: 2000,
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

/** Deletes whatever has passed its retention; returns the rows deleted per kind. */
export async function purgeExpired(
  pool: pg.Pool,
  retention: Retention,
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
    const batch = purge.batch ?? BATCH;
    let total = 0;
    for (;;) {
      const { rowCount } = await pool.query(purge.statement, [purge.retentionMs, batch]);
      total += rowCount ?? 0;
      if ((rowCount ?? 0) < batch) break;
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
  const intervalMs = Math.min(MAX_INTERVAL_MS, Math.max(1000, shortest / 10));
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      await purgeExpired(deps.pool, deps.retention);
    } catch (error) {
      deps.log('warn', 'retention', { err: error }, 'retention purge failed; tried again later');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  void run();
  return { stop: () => clearInterval(timer) };
}
