// What keeps a running worker healthy without a restart:
// - BullMQ job schedulers (each table's, the binary log follower's) live only in Redis. A Redis
//   that restarts empty (no persistence, a failover to a fresh replica) loses them and nothing
//   would ever sync again; they are re-asserted whenever missing: after every reconnect and on
//   a timer.
// - A table that has shown no sign of life for several sync intervals is logged, exposed as
//   the sync_table_stale metric and makes /healthz answer 503, so an orchestrator restarts the
//   worker when self-repair fails.
// - A table whose run is overdue with none of its runs under way has no worker taking its jobs:
//   after a Redis failover a BullMQ worker's blocking connection can stay stuck in its reconnect,
//   the worker alive, idle and silent (taskforcesh/bullmq#4378, #4479). Its worker is replaced,
//   as BullMQ's maintainers advise; a planned run whose job was lost has its schedulers re-created.
import type { Queue } from 'bullmq';
import type { RedisClient } from '#common/redis.js';
import type { ThrottledLog } from '#common/log-throttle.js';
import type { Logger } from '#common/logger.js';
import { withTimeout } from '#common/with-timeout.js';
import { BINLOG_JOB, JOBS, TABLE_JOB_OPTIONS, type TableJobData } from '../queues.js';
import type { SyncMetrics } from './sync-metrics.js';
import type { SyncTable } from '#read-model/table-definition.js';

export interface TableQueue {
  table: SyncTable;
  queue: Queue<TableJobData>;
  /**
   * Where in each reconciliation interval the table's pass starts, as a fraction of it (0 ≤ phase
   * < 1). Tables take turns: started together, every table's pass ran at the same instant, a
   * burst of 2–3 s a minute that set every answer's p99 (docs/decisions/0018).
   */
  phase: number;
}

/** Phases spread evenly over the interval, one per table, none at its very start. */
export const tablePhase = (index: number, tables: number) => (index + 0.5) / tables;

export interface UpkeepDeps {
  connection: RedisClient;
  intervalMs: number;
  reconcileIntervalMs: number;
  logger: Logger;
  log: ThrottledLog;
  metrics?: SyncMetrics;
  /** A table is stale after this long without a sign of life. */
  staleAfterMs: number;
  /** How often schedulers and freshness are checked. */
  upkeepIntervalMs: number;
}

/**
 * How long after its planned time a table's run may wait with none under way. A worker that is
 * taking jobs starts a due one within BullMQ's drain delay (5 s); a run under way (a long first
 * load) makes the next one wait, and is not counted.
 */
const overdueAfterMs = (intervalMs: number) => Math.max(3 * intervalMs, 10_000);

const CHECK_TIMEOUT_MS = 5000;

/** Creates or updates the table's schedulers and its queue's concurrency of one. */
export async function assertSchedules(entry: TableQueue, deps: UpkeepDeps): Promise<void> {
  const { table, queue } = entry;
  const data = { table: table.name };
  await queue.setGlobalConcurrency(1);
  // Every interval, and once at once: the first run is the table's first load or its catch-up.
  // A scheduler already stored (a worker started again, another worker's) keeps its planned run,
  // up to SAFETY_NET_POLL_MS away while the binary log is followed, and a first load a stopped
  // worker left half done would wait for it. One such run waits at a time, whoever asks.
  await queue.upsertJobScheduler(
    JOBS.sync.schedulerId(table.name),
    { every: deps.intervalMs },
    { name: JOBS.sync.name, data, opts: TABLE_JOB_OPTIONS },
  );
  await queue.add(JOBS.sync.name, data, {
    ...TABLE_JOB_OPTIONS,
    deduplication: { id: JOBS.sync.onceId(table.name) },
  });
  // Every table is reconciled (docs/decisions/0002): some changes leave updated_at as it was.
  // Each at its phase of the interval: BullMQ's offset runs it at multiples of `every` since the
  // epoch plus the offset, so the first pass waits for its slot.
  const reconcileId = JOBS.reconcile.schedulerId(table.name);
  const every = deps.reconcileIntervalMs;
  const offset = Math.max(1, Math.round(every * entry.phase));
  const existing = await queue.getJobScheduler(reconcileId);
  // Upserted again with the same `every`, BullMQ keeps a scheduler's planned run and so its old
  // phase: one stored before tables took turns (or with another table count) is replaced.
  if (existing?.every === every && existing.offset !== offset) {
    await queue.removeJobScheduler(reconcileId);
  }
  await queue.upsertJobScheduler(
    reconcileId,
    { every, offset },
    { name: JOBS.reconcile.name, data, opts: TABLE_JOB_OPTIONS },
  );
}

/** How often the binary log follower's job is started again once it ends or fails. */
const FOLLOWER_RESTART_EVERY_MS = 2000;

/** The binary log follower's scheduler (SYNC_SOURCE=binlog), on a queue of concurrency one. */
export async function assertFollowerSchedule(queue: Queue): Promise<void> {
  await queue.setGlobalConcurrency(1);
  await queue.upsertJobScheduler(
    BINLOG_JOB.schedulerId,
    { every: FOLLOWER_RESTART_EVERY_MS },
    { name: BINLOG_JOB.name, data: {}, opts: { ...TABLE_JOB_OPTIONS, attempts: 1 } },
  );
}

async function schedulersPresent({ table, queue }: TableQueue): Promise<boolean> {
  const ids = [JOBS.sync.schedulerId(table.name), JOBS.reconcile.schedulerId(table.name)];
  const found = await Promise.all(ids.map((id) => queue.getJobScheduler(id)));
  return found.every(Boolean);
}

/**
 * Why the table's planned run has not started though none is under way: its job waits and no
 * worker takes it ('worker'), or its job is gone ('job'); null while all is well.
 */
async function overdue(
  { table, queue }: TableQueue,
  graceMs: number,
): Promise<'worker' | 'job' | null> {
  const schedulerId = JOBS.sync.schedulerId(table.name);
  const scheduler = await queue.getJobScheduler(schedulerId);
  if (!scheduler?.next || Date.now() - scheduler.next < graceMs) return null;
  if ((await queue.getActiveCount()) > 0) return null;
  // The job a scheduler plans has this id (BullMQ's job schedulers).
  const state = await queue.getJobState(`repeat:${schedulerId}:${scheduler.next}`);
  return state === 'delayed' || state === 'waiting' || state === 'prioritized' ? 'worker' : 'job';
}

export function startUpkeep(
  entries: readonly TableQueue[],
  deps: UpkeepDeps,
  /** The binary log follower's queue, when the worker follows the log. */
  followerQueue: Queue | null = null,
  /** Closes this process's worker of the table and opens another. */
  replaceWorker: (table: string) => void = () => undefined,
) {
  const startedAt = Date.now() / 1000;
  const stale = new Set<string>();
  /** When each table's worker was last replaced: once per grace, not on every check. */
  const replacedAt = new Map<string, number>();
  let running = false;

  async function restartOverdue(): Promise<void> {
    const graceMs = overdueAfterMs(deps.intervalMs);
    for (const entry of entries) {
      const name = entry.table.name;
      if (Date.now() - (replacedAt.get(name) ?? 0) < graceMs) continue;
      const why = await overdue(entry, graceMs);
      if (!why) continue;
      replacedAt.set(name, Date.now());
      if (why === 'worker') {
        deps.logger.warn({ table: name }, 'a due sync run is not taken; its worker is replaced');
        replaceWorker(name);
      } else {
        deps.logger.warn({ table: name }, 'a planned sync run was lost; schedulers re-created');
        await entry.queue.removeJobScheduler(JOBS.sync.schedulerId(name));
        await assertSchedules(entry, deps);
      }
    }
  }

  async function repairSchedules(): Promise<void> {
    for (const entry of entries) {
      if (await schedulersPresent(entry)) continue;
      deps.logger.warn({ table: entry.table.name }, 'job schedulers missing in Redis; re-created');
      await assertSchedules(entry, deps);
    }
    if (followerQueue && !(await followerQueue.getJobScheduler(BINLOG_JOB.schedulerId))) {
      deps.logger.warn(
        { queue: followerQueue.name },
        'job schedulers missing in Redis; re-created',
      );
      await assertFollowerSchedule(followerQueue);
    }
  }

  async function checkFreshness(): Promise<void> {
    const { metrics } = deps;
    if (!metrics) return;
    await metrics.refresh();
    const now = Date.now() / 1000;
    for (const { table } of entries) {
      const age = now - (metrics.lastActivityOf(table.name) ?? startedAt);
      const isStale = age * 1000 > deps.staleAfterMs;
      metrics.setStale(table.name, isStale);
      if (isStale && !stale.has(table.name)) {
        deps.logger.error({ table: table.name, seconds: Math.round(age) }, 'table not syncing');
      } else if (!isStale && stale.has(table.name)) {
        deps.logger.info({ table: table.name }, 'table syncing again');
      }
      if (isStale) stale.add(table.name);
      else stale.delete(table.name);
    }
  }

  async function check(): Promise<void> {
    if (running) return;
    running = true;
    try {
      await withTimeout(repairSchedules(), CHECK_TIMEOUT_MS);
      await withTimeout(restartOverdue(), CHECK_TIMEOUT_MS);
    } catch (error) {
      deps.log('warn', 'upkeep', { err: error }, 'job scheduler check failed; retried shortly');
    } finally {
      running = false;
    }
    await checkFreshness();
  }

  // ioredis emits ready after every reconnect: the moment a Redis restarted empty is back.
  const onReady = () => void check();
  deps.connection.on('ready', onReady);
  const timer = setInterval(() => void check(), deps.upkeepIntervalMs);
  timer.unref();

  return {
    check,
    /** Tables not syncing for longer than the threshold, as of the last check. */
    staleTables: () => [...stale],
    stop() {
      clearInterval(timer);
      deps.connection.off('ready', onReady);
    },
  };
}
