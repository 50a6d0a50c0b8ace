// Where a request's reads go: a PostgreSQL read replica (DATABASE_READ_URLS) that is healthy,
// close enough behind (READ_REPLICA_MAX_LAG_MS) and has replayed the caller's own last write,
// else the primary. See docs/decisions/0013.
//
// - Each replica is probed in the background (PROBE_MS): its replay position, and its lag: zero
//   when it has replayed everything the primary had written at the probe, else the time since
//   the last transaction it replayed (an upper bound of how stale its answers are).
// - A member write records the primary's WAL position after its commit under the client's key in
//   Redis; the limiter's Lua call hands it back with every request of that client
//   (client-limiter.ts), so any gateway instance can tell whether a replica has replayed it.
// - A read that finds its replica gone (down, restarted) is answered again from the primary, and
//   the replica is skipped until a probe finds it well again: a dead replica costs no 5xx.
import type pg from 'pg';
import type { Logger } from '#common/logger.js';
import {
  createReadModelClient,
  readModelPool,
  type PoolOptions,
  type ReadModelClient,
} from '#common/databases.js';
import type { RedisClient } from '#common/redis.js';
import type { DataScope } from '#api/data-scope.js';
import { readAfterKey } from '../trust/client-epochs.js';
import { createScopedReads, type ScopedRead } from './scoped-read.js';

const PROBE_MS = 250;
/** A replica not probed successfully for this long is skipped (its probe hangs or fails). */
const PROBE_STALE_MS = 2000;

/**
 * A WAL position ("16/B374D848") as 16 hex digits, so that text order is WAL order (Lua, Redis).
 */
export function lsnKey(lsn: string): string {
  const [high = '0', low = '0'] = lsn.split('/');
  return high.padStart(8, '0').toUpperCase() + low.padStart(8, '0').toUpperCase();
}

export interface ReadChoice {
  read: ScopedRead;
  /** What the chosen database adds to X-Data-Age (0 on the primary). */
  lagMs: number;
  /** A replica's name for logs and metrics, or 'primary'. */
  target: string;
  /** Marks the replica failed after a read found it down; a no-op on the primary. */
  failed(): void;
}

interface Replica {
  name: string;
  db: ReadModelClient;
  pool: pg.Pool;
  reads: (scope: DataScope) => ScopedRead;
  replayed: string;
  lagMs: number;
  probedAt: number;
  down: boolean;
}

export interface ReadRouting {
  /**
   * Reads for this scope. `readAfter`: the position the caller's own last write must be visible
   * at ('' none recent), or null when unknown (Redis unreachable): then the primary.
   */
  choose(scope: DataScope, readAfter: string | null): ReadChoice;
  /** After a member write's commit: its position, kept for the client (no-op without replicas). */
  recordWrite(clientId: number): Promise<void>;
  /** Lag and health per replica, for metrics. */
  replicas(): { name: string; lagMs: number; usable: boolean }[];
  close(): Promise<void>;
}

const SCRIPT_KEEP_MAX = `
local current = redis.call('GET', KEYS[1])
if (not current) or current < ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
`;

interface WithKeepMax {
  gatewayKeepMax(key: string, value: string, ttlMs: number): Promise<number>;
}

interface ReadRoutingDeps {
  primary: ReadModelClient;
  replicaUrls: readonly string[];
  maxLagMs: number;
  poolOptions: PoolOptions;
  redis: RedisClient;
  prefix: string;
  logger: Logger;
}

export function createReadRouting(deps: ReadRoutingDeps): ReadRouting {
  const primaryReads = createScopedReads(deps.primary);
  const onPrimary = (scope: DataScope): ReadChoice => ({
    read: primaryReads(scope),
    lagMs: 0,
    target: 'primary',
    failed: () => undefined,
  });
  if (deps.replicaUrls.length === 0) {
    return {
      choose: onPrimary,
      recordWrite: () => Promise.resolve(),
      replicas: () => [],
      close: () => Promise.resolve(),
    };
  }

  const replicas = deps.replicaUrls.map((url, i) => openReplica(url, i, deps.poolOptions));
  const primaryPool = readModelPool(deps.primary);
  const stopProbing = startProbing(replicas, primaryPool, deps.logger);
  const keepMax = withKeepMax(deps.redis);
  // Past this, any replica still in use has replayed the write anyway (it is at most maxLag
  // behind).
  const keptMs = deps.maxLagMs + 10_000;
  const turn = { next: 0 };
  return {
    choose(scope, readAfter) {
      const replica = nextReplica(replicas, turn, readAfter, deps.maxLagMs, Date.now());
      return replica ? replicaChoice(replica, scope, deps.logger) : onPrimary(scope);
    },
    async recordWrite(clientId) {
      const position = await primaryPosition(primaryPool);
      await keepMax.gatewayKeepMax(readAfterKey(deps.prefix, clientId), position, keptMs);
    },
    replicas() {
      const now = Date.now();
      return replicas.map((r) => ({
        name: r.name,
        lagMs: r.lagMs,
        usable: usable(r, now, deps.maxLagMs),
      }));
    },
    async close() {
      stopProbing();
      await Promise.allSettled(replicas.map((r) => r.db.$disconnect()));
    },
  };
}

function openReplica(url: string, index: number, poolOptions: PoolOptions): Replica {
  const db = createReadModelClient(url, poolOptions);
  return {
    name: `replica-${index + 1}`,
    db,
    pool: readModelPool(db),
    reads: createScopedReads(db),
    replayed: '',
    lagMs: Infinity,
    probedAt: 0,
    down: true,
  };
}

/** A replica takes reads when its last probe is recent, found it well and close enough behind. */
export function usable(
  replica: Pick<Replica, 'down' | 'probedAt' | 'lagMs'>,
  now: number,
  maxLagMs: number,
): boolean {
  return !replica.down && now - replica.probedAt < PROBE_STALE_MS && replica.lagMs <= maxLagMs;
}

/**
 * The replica for the next read, in turn over the usable ones that have replayed `readAfter`;
 * null for the primary (`readAfter` null: Redis could not say what the caller last wrote).
 */
export function nextReplica<R extends Pick<Replica, 'down' | 'probedAt' | 'lagMs' | 'replayed'>>(
  replicas: readonly R[],
  turn: { next: number },
  readAfter: string | null,
  maxLagMs: number,
  now: number,
): R | null {
  if (readAfter === null) return null;
  for (let i = 0; i < replicas.length; i++) {
    const replica = replicas[(turn.next + i) % replicas.length];
    if (!replica || !usable(replica, now, maxLagMs) || replica.replayed < readAfter) continue;
    turn.next = (turn.next + i + 1) % replicas.length;
    return replica;
  }
  return null;
}

function replicaChoice(replica: Replica, scope: DataScope, logger: Logger): ReadChoice {
  return {
    read: replica.reads(scope),
    lagMs: replica.lagMs,
    target: replica.name,
    failed: () => {
      if (!replica.down) {
        logger.warn({ replica: replica.name }, 'read replica failed a read; skipped');
      }
      replica.down = true;
    },
  };
}

// The insert position, not the write position: with synchronous_commit off, a commit the
// client has seen may not have been written yet, and a replica has it only once it has.
async function primaryPosition(primaryPool: pg.Pool): Promise<string> {
  const { rows } = await primaryPool.query<{ lsn: string }>(
    'SELECT pg_current_wal_insert_lsn()::text AS lsn',
  );
  return lsnKey(rows[0]?.lsn ?? '0/0');
}

/** Probes every replica each PROBE_MS until the returned function is called. */
function startProbing(replicas: Replica[], primaryPool: pg.Pool, logger: Logger): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const loop = async () => {
    try {
      const primaryAt = await primaryPosition(primaryPool);
      await Promise.all(replicas.map((r) => probe(r, primaryAt, logger)));
    } catch {
      // The primary is away: replicas keep their last state until PROBE_STALE_MS ends it.
    }
    if (!stopped) timer = setTimeout(() => void loop(), PROBE_MS);
  };
  void loop();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

async function probe(replica: Replica, primaryAt: string, logger: Logger): Promise<void> {
  try {
    const { rows } = await replica.pool.query<{
      standby: boolean;
      replayed: string | null;
      since_ms: number | null;
    }>(
      `SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed,
              (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS since_ms`,
    );
    const row = rows[0];
    // A promoted replica is a primary of its own: what it holds may differ from ours.
    if (!row?.standby || row.replayed === null) throw new Error('not a streaming replica');
    const replayed = lsnKey(row.replayed);
    replica.replayed = replayed;
    replica.lagMs = replayed >= primaryAt ? 0 : (row.since_ms ?? Infinity);
    replica.probedAt = Date.now();
    if (replica.down) logger.info({ replica: replica.name }, 'read replica in use');
    replica.down = false;
  } catch (error) {
    if (!replica.down) {
      logger.warn({ replica: replica.name, err: error }, 'read replica skipped');
    }
    replica.down = true;
  }
}

function withKeepMax(redis: RedisClient): WithKeepMax {
  if (!('gatewayKeepMax' in redis)) {
    redis.defineCommand('gatewayKeepMax', { numberOfKeys: 1, lua: SCRIPT_KEEP_MAX });
  }
  return redis as unknown as WithKeepMax;
}
