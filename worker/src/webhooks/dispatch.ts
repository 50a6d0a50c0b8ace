// Turns the change feed into webhook events (decision 0012): each subscription follows the feed
// as its client may see it (scopes and branch, as they are now) from its own position, and each
// page's events are inserted in the transaction that moves the position on. A crash before the
// commit records nothing and the page is read again; after it, the events are in PostgreSQL
// whatever happens to Redis or to this process. Many workers may dispatch: a subscription is
// taken with SKIP LOCKED, by one of them at a time.
import type pg from 'pg';
import pLimit from 'p-limit';
import { readChangePage, type Change } from '../../../api/changes/change-page.js';
import type { ChangeKey } from '../../../api/changes/change-statement.js';
import { typesRead } from '../../../api/changes/change-types.js';
import type { CursorCodec } from '../../../api/changes/cursor.js';
import { dataScopeOf } from '../../../api/data-scope.js';
import { createScopedSql } from '../../../api/scoped-sql.js';
import { receivesWebhooks } from '../../../api/webhooks/rights.js';
import type { throttledLog } from '../../../common/log-throttle.js';
import { tracing } from '../../../common/traces.js';
import { memberWriteTraceParents } from '../write-traces.js';
import type { Delivery } from './delivery.js';

/** Feed keys read per subscription and transaction. */
const PAGE = 500;
/**
 * Subscriptions dispatched at once, each on a connection of its own: a pass takes the time of
 * the slowest few rather than the sum of all, so one partner's many subscriptions do not hold
 * back another's events. Well under the worker's webhook pool, which delivery shares.
 */
export const DISPATCH_CONCURRENCY = 4;

export interface DispatchDeps {
  pool: pg.Pool;
  delivery: Pick<Delivery, 'enqueue'>;
  intervalMs: number;
  log: ReturnType<typeof throttledLog>;
  /** Signs each event's cursor, as GET /changes signs its own. */
  cursors: CursorCodec;
}

interface Subscription {
  id: number;
  types: string[] | null;
  feed_xid: string;
  feed_kind: number;
  feed_type: string;
  feed_id: number;
  is_active: boolean;
  scopes: string[];
  branch_id: number | null;
}

/**
 * The body of one event: exactly the bytes signed and sent, on every try. `cursor` resumes
 * GET /changes right after the change.
 */
export function eventBody(change: Change, cursor: string, at: Date): string {
  return JSON.stringify({
    type: `${change.type}.${change.op}`,
    timestamp: at.toISOString(),
    data: change,
    cursor,
  });
}

/**
 * Each change's traceparent, when tracing is on and the change is a member's row as a traced
 * write of the API made it (../write-traces.ts): that event's tries link to the write's trace.
 * Read on the dispatching transaction's connection, as the page was.
 */
async function traceParentsOf(
  client: pg.PoolClient,
  changes: readonly { change: Change }[],
): Promise<(string | null)[]> {
  if (!tracing()) return changes.map(() => null);
  const memberRow = (change: Change) => change.type === 'members' && change.op === 'upsert';
  const ids = changes.filter(({ change }) => memberRow(change)).map(({ change }) => change.id);
  const parents = await memberWriteTraceParents(client, ids);
  return changes.map(({ change }) => (memberRow(change) ? (parents.get(change.id) ?? null) : null));
}

export function startDispatch(deps: DispatchDeps) {
  const scopedSql = createScopedSql(deps.pool);

  /** One page of one subscription's changes into events; whether more are waiting. */
  async function dispatchOne(id: number): Promise<{ events: string[]; more: boolean }> {
    const client = await deps.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<Subscription>(
        `SELECT s.id, s.types, s.feed_xid::text, s.feed_kind, s.feed_type, s.feed_id,
                c.is_active, c.scopes, c.branch_id
           FROM webhook_subscriptions s JOIN api_clients c ON c.id = s.client_id
          WHERE s.id = $1 AND s.enabled
            FOR UPDATE OF s SKIP LOCKED`,
        [id],
      );
      const subscription = rows[0];
      // The rights as they are now: a scope taken from the client stops its events; a client
      // disabled or without webhooks:manage keeps its position until it receives them again.
      const types =
        subscription && receivesWebhooks(subscription)
          ? typesRead(subscription.scopes, subscription.types ?? [])
          : [];
      if (!subscription || types.length === 0) {
        await client.query('ROLLBACK');
        return { events: [], more: false };
      }
      const after: ChangeKey = {
        xid: BigInt(subscription.feed_xid),
        kind: subscription.feed_kind,
        type: subscription.feed_type,
        id: subscription.feed_id,
      };
      // Read on this transaction's connection: no second connection is needed while it holds one.
      const sql = scopedSql(dataScopeOf(subscription.branch_id), client);
      const page = await readChangePage(sql, { types, after, limit: PAGE });
      const traceParents = await traceParentsOf(client, page.changes);
      const now = new Date();
      const inserted = await client.query<{ id: string }>(
        `INSERT INTO webhook_events (subscription_id, event_type, body, changed_at, row_branch_id,
                                     trace_parent)
         SELECT $1, t, b, c, r, p
           FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::int[], $6::text[])
             AS e(t, b, c, r, p)
         RETURNING id::text`,
        [
          subscription.id,
          page.changes.map(({ change }) => `${change.type}.${change.op}`),
          page.changes.map(({ change, key }) => eventBody(change, deps.cursors.encode(key), now)),
          page.changes.map(({ change }) => change.changed_at),
          page.changes.map(({ change }) => change.branch_id),
          traceParents,
        ],
      );
      await client.query(
        `UPDATE webhook_subscriptions
            SET feed_xid = $2, feed_kind = $3, feed_type = $4, feed_id = $5 WHERE id = $1`,
        [subscription.id, page.next.xid.toString(), page.next.kind, page.next.type, page.next.id],
      );
      await client.query('COMMIT');
      return { events: inserted.rows.map((row) => row.id), more: page.hasMore };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  const dispatching = pLimit(DISPATCH_CONCURRENCY);

  /** One subscription's page, its events queued; whether more are waiting. */
  async function dispatchAndQueue(id: number): Promise<boolean> {
    const dispatched = await dispatchOne(id);
    // Queued after the commit; if Redis is down now, the delivery's sweep queues them later.
    await deps.delivery
      .enqueue(
        dispatched.events.map((eventId) => ({ id: eventId, attempt: 1 })),
        { batch: true },
      )
      .catch((error: unknown) =>
        deps.log('warn', 'webhook-enqueue', { err: error }, 'events not queued; the sweep will'),
      );
    return dispatched.more;
  }

  /** Every enabled subscription once; whether one has more waiting. */
  async function dispatchAll(): Promise<boolean> {
    const { rows } = await deps.pool.query<{ id: number }>(
      'SELECT id FROM webhook_subscriptions WHERE enabled ORDER BY id',
    );
    // Every page ends before the pass does, failed or not: the next pass never overlaps this one.
    const pages = await Promise.allSettled(
      rows.map(({ id }) => dispatching(() => dispatchAndQueue(id))),
    );
    const failed = pages.find((page) => page.status === 'rejected');
    if (failed) throw failed.reason;
    return pages.some((page) => page.status === 'fulfilled' && page.value);
  }

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    running = dispatchAll().then(
      (more) => schedule(more ? 0 : deps.intervalMs),
      (error: unknown) => {
        deps.log('warn', 'webhook-dispatch', { err: error }, 'dispatch failed; retrying');
        schedule(deps.intervalMs);
      },
    );
  };
  const schedule = (ms: number) => {
    if (!stopped) timer = setTimeout(tick, ms);
  };
  schedule(0);

  return {
    dispatchAll,
    async close() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
