// Turns the change feed into webhook events (decision 0012). Subscriptions that read the feed
// alike (the same branch binding and the same types, as their clients' rights are now) form one
// view: each page of a view is read once, matched to each of its subscriptions' positions here,
// and recorded in one statement for all of them, in the transaction that moves their positions
// on. A crash before the commit records nothing and the page is read again; after it, the events
// are in PostgreSQL whatever happens to Redis or to this process. Many workers may dispatch: a
// subscription is taken by one of them at a time, under an advisory lock of its own rather than a
// lock on its row, which a page would hold for seconds against everyone who writes the row.
import type pg from 'pg';
import pLimit from 'p-limit';
import { readChangePage, type Change, type ChangePage } from '#api/changes/change-page.js';
// Bodies are stored whole and rendered for the receiving client's classes when sent (delivery.ts).
import { ALL_CLASSES } from '#api/data-classes.js';
import { compareKeys, type ChangeKey } from '#api/changes/change-statement.js';
import { typesRead } from '#api/changes/change-types.js';
import type { CursorCodec } from '#api/changes/cursor.js';
import { dataScopeOf } from '#api/data-scope.js';
import { createScopedSql } from '#api/scoped-sql.js';
import { receivesWebhooks, type ClientRights } from '#api/webhooks/rights.js';
import { SANDBOX_KEY_PATTERN, type Club } from '#api/sandbox.js';
import type { throttledLog } from '#common/log-throttle.js';
import { tracing } from '#common/traces.js';
import { pgRows, sql } from '#read-model/sql.js';
import { memberWriteTraceParents } from '../write-traces.js';
import type { Delivery } from './delivery.js';

/** Feed keys read per page at most. */
const PAGE = 500;
/**
 * Events one page records at most: a view followed by many subscriptions reads shorter pages, so
 * a transaction stays a few seconds' work however many follow it.
 */
const EVENTS_PER_PAGE = 20_000;
/** Feed keys read per page at least, however many subscriptions follow the view. */
const MIN_PAGE = 20;
/**
 * Subscriptions one page serves at most: each holds an entry of PostgreSQL's shared lock table
 * (FOLLOWER_LOCKS) until the page commits, a table of about 64 per connection (7,800 at the
 * defaults) that every other transaction on the server draws on too. A larger view is read once
 * per this many.
 */
const FOLLOWERS_PER_PAGE = 1000;
/**
 * Views dispatched at once, each on a connection of its own: a pass takes the time of the
 * slowest few rather than the sum of all. Well under the worker's webhook pool, which delivery
 * shares.
 */
export const DISPATCH_CONCURRENCY = 4;

export interface DispatchDeps {
  /** The live read model: subscriptions, their clients, the events recorded. */
  pool: pg.Pool;
  /**
   * The club whose feed this dispatcher reads, and where: the live read model's pool, or the
   * sandbox's (api/sandbox.ts). Only that club's clients' subscriptions follow it.
   */
  feed: { club: Club; pool: pg.Pool };
  delivery: Pick<Delivery, 'enqueue'>;
  intervalMs: number;
  log: ReturnType<typeof throttledLog>;
  /** Signs each event's cursor, as GET /changes signs its own. */
  cursors: CursorCodec;
}

/** An enabled subscription and its client's rights, as they are now. */
interface Follower extends ClientRights {
  id: number;
  types: string[];
}

/** A follower locked for a page, with its position in the feed. */
interface Positioned extends Follower {
  feed_xid: string;
  feed_kind: number;
  feed_type: string;
  feed_id: number;
}

/** The feed as a subscription reads it: its client's branch binding and the types it may read. */
export interface View {
  key: string;
  branchId: number | null;
  types: string[];
}

/**
 * The view of a subscription as its client's rights are now; null while it receives nothing (a
 * client disabled or without webhooks:manage keeps its position until it receives them again; a
 * scope taken from it stops its events).
 */
export function viewOf(follower: Follower): View | null {
  if (!receivesWebhooks(follower)) return null;
  const types = typesRead(follower.scopes, follower.types).sort();
  if (types.length === 0) return null;
  return {
    key: `${follower.branch_id ?? '*'}:${types.join(',')}`,
    branchId: follower.branch_id,
    types,
  };
}

/** Feed keys in the feed's order: compareKeys, then id. */
const compareFeedKeys = (a: ChangeKey, b: ChangeKey) => compareKeys(a, b) || a.id - b.id;

const positionOf = (follower: Positioned): ChangeKey => ({
  xid: BigInt(follower.feed_xid),
  kind: follower.feed_kind,
  type: follower.feed_type,
  id: follower.feed_id,
});

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

/** The enabled subscriptions (s) of the club's clients (c). */
const enabled = (club: Club) => sql`
    FROM webhook_subscriptions s JOIN api_clients c ON c.id = s.client_id
   WHERE s.enabled AND (c.client_key LIKE ${SANDBOX_KEY_PATTERN}) = ${club === 'sandbox'}`;

const enabledFollowers = (club: Club) => sql`
  SELECT s.id, s.types, c.is_active, c.scopes, c.branch_id ${enabled(club)} ORDER BY s.id`;

/**
 * What ENABLED_FOLLOWERS would list, in one value computed by PostgreSQL: while it stays the same,
 * a pass groups the subscriptions as the previous listing did, without listing and parsing every
 * one of them again (each pass's cost would grow with the number of subscriptions).
 */
const followersFingerprint = (club: Club) => sql`
  SELECT md5(coalesce(string_agg(
           s.id || ':' || s.types::text || ':' || c.is_active || ':' || c.scopes::text || ':' ||
           coalesce(c.branch_id::text, '*'), ';' ORDER BY s.id), '')) AS fingerprint
    ${enabled(club)}`;

/** The advisory lock space of dispatch: (FOLLOWER_LOCKS, subscription id) is one follower's. */
const FOLLOWER_LOCKS = 12;

/**
 * The followers among `ids` no other dispatcher holds, held until the page's transaction ends:
 * an advisory lock each, taken without waiting. Not their rows: a page holds its followers for up
 * to seconds, and a try's change of its subscription's state, the partner's edit and the
 * operator's disable would each wait that long. Dispatchers alone take these locks.
 */
const claimFollowers = (ids: readonly number[]) => sql`
  SELECT id FROM unnest(${ids}::int[]) AS f(id)
   WHERE pg_try_advisory_xact_lock(${FOLLOWER_LOCKS}, id)`;

/**
 * The claimed followers' positions and rights. A statement of its own after the claim: its
 * snapshot begins after the lock was granted, so it sees the position the previous holder
 * committed before letting go. KEY SHARE on the rows, skipping those locked FOR UPDATE: the
 * release before these claims took its followers that way, and during a rolling upgrade each
 * release's dispatchers pass by the other's; the updates of a subscription's other columns (a
 * try's state, a partner's edit, an operator's disable) never wait for it.
 */
const claimedFollowers = (ids: readonly number[]) => sql`
  SELECT s.id, s.types, s.feed_xid::text, s.feed_kind, s.feed_type, s.feed_id,
         c.is_active, c.scopes, c.branch_id
    FROM webhook_subscriptions s JOIN api_clients c ON c.id = s.client_id
   WHERE s.id = ANY(${ids}::int[]) AND s.enabled
   ORDER BY s.id
     FOR KEY SHARE OF s SKIP LOCKED`;

/**
 * One page's events for every follower in one statement: the page's changes are sent once, and
 * each follower takes those from its `first` on (1-based), in the page's order, so each
 * subscription's events are numbered in feed order as when it read the page alone.
 */
function insertEvents(
  page: ChangePage,
  bodies: readonly string[],
  traceParents: readonly (string | null)[],
  followers: readonly { id: number; first: number }[],
) {
  const changes = page.changes.map(({ change }) => change);
  return sql`
    INSERT INTO webhook_events (subscription_id, event_type, body, changed_at, row_branch_id,
                                trace_parent)
    SELECT f.id, e.event_type, e.body, e.changed_at, e.row_branch_id, e.trace_parent
      FROM unnest(${followers.map((f) => f.id)}::int[], ${followers.map((f) => f.first)}::int[])
             AS f(id, first)
      JOIN unnest(${changes.map((c) => `${c.type}.${c.op}`)}::text[], ${bodies}::text[],
                  ${changes.map((c) => c.changed_at)}::timestamptz[],
                  ${changes.map((c) => c.branch_id)}::int[], ${traceParents}::text[])
             WITH ORDINALITY AS e(event_type, body, changed_at, row_branch_id, trace_parent, n)
        ON e.n >= f.first
     ORDER BY f.id, e.n
    RETURNING id::text`;
}

const movePositions = (ids: readonly number[], next: ChangeKey) => sql`
  UPDATE webhook_subscriptions
     SET feed_xid = ${next.xid.toString()}::bigint, feed_kind = ${next.kind},
         feed_type = ${next.type}, feed_id = ${next.id}
   WHERE id = ANY(${ids}::int[])`;

/**
 * How long a view's positions may stay behind in PostgreSQL while its pages bring nothing: a
 * page read past them would only skip other branches' and types' changes, whose number grows
 * with time.
 */
const MOVE_IDLE_POSITIONS_MS = 60_000;

/** What one page did: its events, whether more wait, and the followers it left for another. */
interface PageOutcome {
  events: string[];
  more: boolean;
  /** Followers whose positions lie past the page's end: a page from theirs comes next. */
  ahead: number[];
  /** Set when every follower was taken and moved on: a floor under all their positions now. */
  floor?: Floor;
}

const NOTHING: PageOutcome = { events: [], more: false, ahead: [] };

export function startDispatch(deps: DispatchDeps) {
  const dispatcher: Dispatcher = {
    ...deps,
    scopedSql: createScopedSql(deps.feed.pool),
    dispatching: pLimit(DISPATCH_CONCURRENCY),
    listing: null,
    floors: new Map(),
  };
  const pass = () => dispatchAll(dispatcher);
  const snapshot = async () => {
    const [row] = await pgRows<{ xmin: string; xmax: string }>(deps.pool, SNAPSHOT_BOUNDS);
    return { xmin: BigInt(row!.xmin), xmax: BigInt(row!.xmax) };
  };
  return { dispatchAll: pass, ...startPasses(pass, snapshot, deps) };
}

/** A key at or before the position of every follower of a view's part, and when it was moved. */
interface Floor {
  key: ChangeKey;
  movedAt: number;
}

/**
 * What a dispatcher works with: its dependencies, its scoped reads, its views at once, and what
 * it last saw of the subscriptions.
 */
interface Dispatcher extends DispatchDeps {
  scopedSql: ReturnType<typeof createScopedSql>;
  dispatching: ReturnType<typeof pLimit>;
  /** The last listing's views, with the fingerprint read before it. */
  listing: { fingerprint: string; views: { view: View; ids: number[] }[] } | null;
  /**
   * Per part of a view (its key and first follower's index), a floor under its followers'
   * positions, known since this dispatcher committed their page: a pass first reads the page
   * there, and only when it brings something takes and reads the followers themselves. Cleared
   * with every new listing. Positions only ever move forward, so a floor stays under them
   * whoever moves them.
   */
  floors: Map<string, Floor>;
}

const SNAPSHOT_BOUNDS = sql`
  SELECT pg_snapshot_xmin(s)::text AS xmin, pg_snapshot_xmax(s)::text AS xmax
    FROM pg_current_snapshot() s`;

/**
 * The rests between passes while a woken change may still be hidden: the feed shows a
 * transaction once every older one on the server has ended, and one still running (another
 * table's sync, a member write, another database's work) may hide the change just announced.
 * They double from the first to the last, so a transaction left open for long costs a pass a
 * second at most.
 */
const HELD_BACK_FIRST_MS = 50;
const HELD_BACK_MOST_MS = 1000;

/**
 * Passes one after another: the next `intervalMs` after a pass, at once after one that left
 * more waiting, or as soon as the one under way ends after a wake-up. A wake-up is followed
 * until a pass has read past every transaction that had begun when it came, so the change it
 * announced is never left for the interval.
 */
function startPasses(
  pass: () => Promise<boolean>,
  snapshot: () => Promise<{ xmin: bigint; xmax: bigint }>,
  deps: Pick<DispatchDeps, 'intervalMs' | 'log'>,
) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let passing = false;
  /** A wake-up no pass has answered yet: the next one starts as soon as the one under way ends. */
  let woken = false;
  /** A pass must read past this transaction id: a woken change lies below it. */
  let readPast: bigint | null = null;
  /** The rest before the next pass while readPast stands. */
  let heldBackMs = HELD_BACK_FIRST_MS;
  let stopped = false;
  /** One pass; the rest before the next. */
  const once = async (): Promise<number> => {
    const answering = woken;
    woken = false;
    if (answering || readPast !== null) {
      const bounds = await snapshot();
      if (answering && (readPast === null || bounds.xmax > readPast)) {
        readPast = bounds.xmax;
        heldBackMs = HELD_BACK_FIRST_MS;
      }
      // This pass's reads see every transaction below readPast: the wake-up is answered.
      if (bounds.xmin >= readPast!) readPast = null;
    }
    const more = await pass();
    if (more) return 0;
    if (readPast === null) return deps.intervalMs;
    const restMs = Math.min(heldBackMs, deps.intervalMs);
    heldBackMs = Math.min(heldBackMs * 2, HELD_BACK_MOST_MS);
    return restMs;
  };
  const tick = () => {
    passing = true;
    running = once().then(rest, (error: unknown) => {
      deps.log('warn', 'webhook-dispatch', { err: error }, 'dispatch failed; retrying');
      rest(deps.intervalMs);
    });
  };
  const rest = (ms: number) => {
    passing = false;
    schedule(woken ? 0 : ms);
  };
  const schedule = (ms: number) => {
    if (!stopped) timer = setTimeout(tick, ms);
  };
  schedule(0);
  return {
    /**
     * Changes were committed (the sync says so): a pass starts now, or right after the one under
     * way, rather than at the end of the interval.
     */
    wake() {
      if (stopped) return;
      woken = true;
      if (passing) return;
      clearTimeout(timer);
      schedule(0);
    },
    async close() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** The enabled subscriptions grouped by view; those receiving nothing now are left out. */
export function viewsOf(followers: readonly Follower[]): { view: View; ids: number[] }[] {
  const views = new Map<string, { view: View; ids: number[] }>();
  for (const follower of followers) {
    const view = viewOf(follower);
    if (!view) continue;
    const entry = views.get(view.key);
    if (entry) entry.ids.push(follower.id);
    else views.set(view.key, { view, ids: [follower.id] });
  }
  return [...views.values()];
}

/** The enabled subscriptions by view: listed again only when their fingerprint changed. */
async function listViews(dispatcher: Dispatcher): Promise<{ view: View; ids: number[] }[]> {
  const [row] = await pgRows<{ fingerprint: string }>(
    dispatcher.pool,
    followersFingerprint(dispatcher.feed.club),
  );
  const fingerprint = row!.fingerprint;
  if (dispatcher.listing?.fingerprint === fingerprint) return dispatcher.listing.views;
  const views = viewsOf(
    await pgRows<Follower>(dispatcher.pool, enabledFollowers(dispatcher.feed.club)),
  );
  dispatcher.listing = { fingerprint, views };
  dispatcher.floors.clear();
  return views;
}

/** Every view of the enabled subscriptions once; whether one has more waiting. */
async function dispatchAll(dispatcher: Dispatcher): Promise<boolean> {
  const views = await listViews(dispatcher);
  // Every page ends before the pass does, failed or not: the next pass never overlaps this one.
  const passes = await Promise.allSettled(
    views.map(({ view, ids }) => dispatcher.dispatching(() => dispatchView(dispatcher, view, ids))),
  );
  const failed = passes.find((pass) => pass.status === 'rejected');
  if (failed) throw failed.reason;
  return passes.some((pass) => pass.status === 'fulfilled' && pass.value);
}

/** Every page a view's followers need this pass, events queued; whether more are waiting. */
async function dispatchView(
  dispatcher: Dispatcher,
  view: View,
  ids: readonly number[],
): Promise<boolean> {
  let more = false;
  for (let start = 0; start < ids.length; start += FOLLOWERS_PER_PAGE) {
    const followers = ids.slice(start, start + FOLLOWERS_PER_PAGE);
    if (await dispatchFollowers(dispatcher, view, followers, `${view.key}@${start}`)) more = true;
  }
  return more;
}

/**
 * Every page these followers of a view (the part `part`) need this pass, events queued; whether
 * more wait.
 */
async function dispatchFollowers(
  dispatcher: Dispatcher,
  view: View,
  ids: readonly number[],
  part: string,
): Promise<boolean> {
  let more = false;
  for (let waiting = ids; waiting.length > 0;) {
    // The floor stands for the part's every follower: only its first page starts there.
    const floor = waiting === ids ? (dispatcher.floors.get(part) ?? null) : null;
    const page = await dispatchPage(dispatcher, view, waiting, floor);
    if (waiting === ids && page.floor) dispatcher.floors.set(part, page.floor);
    // Queued after the commit; if Redis is down now, the delivery's sweep queues them later.
    await dispatcher.delivery
      .enqueue(
        page.events.map((eventId) => ({ id: eventId, attempt: 1 })),
        { batch: true },
      )
      .catch((error: unknown) =>
        dispatcher.log(
          'warn',
          'webhook-enqueue',
          { err: error },
          'events not queued; the sweep will',
        ),
      );
    more ||= page.more;
    waiting = page.ahead;
  }
  return more;
}

/** Feed keys one page reads for this many followers. */
const pageLimit = (followers: number) =>
  Math.max(MIN_PAGE, Math.min(PAGE, Math.floor(EVENTS_PER_PAGE / followers)));

/**
 * One page of a view, read from the earliest position of its followers, into each follower's
 * events after its own position. Followers whose view changed since the pass listed them are
 * left to the next pass, which lists them under their new view.
 *
 * With a floor under every follower's position, the page is read from there first: when it
 * brings nothing, the followers are neither taken nor read (a pass over views where nothing
 * happened costs a statement each), until their positions are MOVE_IDLE_POSITIONS_MS old; when
 * it does, it is the page they are served from, once they are taken. Read before they are
 * taken, it holds every change after each one's position up to its end, as one read after would.
 */
async function dispatchPage(
  dispatcher: Dispatcher,
  view: View,
  ids: readonly number[],
  floor: Floor | null,
): Promise<PageOutcome> {
  const limit = pageLimit(ids.length);
  // The live feed is read on the transaction's connection (no second one while it holds one);
  // the sandbox's is in another database, read on its own pool.
  const feedOn = (client: pg.PoolClient) => (dispatcher.feed.club === 'live' ? client : undefined);
  let early: ChangePage | null = null;
  if (floor) {
    const scoped = dispatcher.scopedSql(dataScopeOf(view.branchId));
    early = await readChangePage(scoped, {
      types: view.types,
      after: floor.key,
      limit,
      classes: ALL_CLASSES,
    });
    const fresh = Date.now() - floor.movedAt < MOVE_IDLE_POSITIONS_MS;
    if (early.changes.length === 0 && !early.hasMore && fresh) return NOTHING;
  }
  const client = await dispatcher.pool.connect();
  try {
    await client.query('BEGIN');
    const claimed = await pgRows<{ id: number }>(client, claimFollowers(ids));
    const current =
      claimed.length === 0
        ? []
        : await pgRows<Positioned>(client, claimedFollowers(claimed.map(({ id }) => id)));
    const followers = current.filter((follower) => viewOf(follower)?.key === view.key);
    if (followers.length === 0) {
      await client.query('ROLLBACK');
      return NOTHING;
    }
    const positions = followers.map(positionOf);
    const after = positions.reduce((a, b) => (compareFeedKeys(a, b) <= 0 ? a : b));
    // Read on this transaction's connection: no second connection is needed while it holds one.
    const page =
      early && floor && compareFeedKeys(floor.key, after) <= 0
        ? early
        : await readChangePage(dispatcher.scopedSql(dataScopeOf(view.branchId), feedOn(client)), {
            types: view.types,
            after,
            limit,
            classes: ALL_CLASSES,
          });
    const { served, ahead } = servedBy(page, followers, positions);
    // Every follower is at or past the page's end now, when each was taken and none left.
    const allMoved = followers.length === ids.length && ahead.length === 0;
    const moved = allMoved ? { key: page.next, movedAt: Date.now() } : undefined;
    if (served.length === 0) {
      await client.query('ROLLBACK');
      return { ...NOTHING, ahead, ...(moved && { floor: moved }) };
    }
    const events =
      page.changes.length > 0 ? await recordEvents(dispatcher, client, page, served) : [];
    await pgRows(
      client,
      movePositions(
        served.map(({ id }) => id),
        page.next,
      ),
    );
    await client.query('COMMIT');
    return { events, more: page.hasMore, ahead, ...(moved && { floor: moved }) };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Which followers a page serves, each from its first change past its position (1-based), and
 * which lie past the page's end. A follower whose position is at or past the page's end has read
 * it all: after a short page nothing waits for it; after a full one its own page comes next.
 */
export function servedBy(
  page: Pick<ChangePage, 'changes' | 'next' | 'hasMore'>,
  followers: readonly { id: number }[],
  positions: readonly ChangeKey[],
): { served: { id: number; first: number }[]; ahead: number[] } {
  const served: { id: number; first: number }[] = [];
  const ahead: number[] = [];
  followers.forEach((follower, i) => {
    const position = positions[i]!;
    if (compareFeedKeys(position, page.next) < 0) {
      const first = page.changes.findIndex(({ key }) => compareFeedKeys(key, position) > 0);
      served.push({ id: follower.id, first: first < 0 ? page.changes.length + 1 : first + 1 });
    } else if (page.hasMore) {
      ahead.push(follower.id);
    }
  });
  return { served, ahead };
}

/** The page's events of every follower served, on the page's transaction; their ids. */
async function recordEvents(
  dispatcher: Dispatcher,
  client: pg.PoolClient,
  page: ChangePage,
  served: readonly { id: number; first: number }[],
): Promise<string[]> {
  // One body per change, the same for every follower: its cursor is the change's feed key.
  const now = new Date();
  const bodies = page.changes.map(({ change, key }) =>
    eventBody(change, dispatcher.cursors.encode(key), now),
  );
  // Write traces are the live gateway's: the sandbox's changes link to none.
  const traceParents =
    dispatcher.feed.club === 'live'
      ? await traceParentsOf(client, page.changes)
      : page.changes.map(() => null);
  const rows = await pgRows<{ id: string }>(
    client,
    insertEvents(page, bodies, traceParents, served),
  );
  return rows.map((row) => row.id);
}
