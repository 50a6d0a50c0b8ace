// Follows the legacy server's binary log (SYNC_SOURCE=binlog, docs/decisions/0016): row events
// only name the keys they touched; the committed transactions of up to BATCH_MS or BATCH_KEYS
// keys make a batch, applied by apply-changes.ts with the position of its last commit.
//
// One worker follows at a time: the follower is a BullMQ job on a queue of global concurrency
// one, as each table's sync is; a killed worker's job is handed to another once its lock lapses,
// and that one resumes from the stored position. The job ends when the worker stops, and fails
// on any error of the log (the next scheduled job starts a new client from the stored position).
// A log that refuses the worker's user (grants lost) is polled for meanwhile (accessDenied); a
// log lost (position purged, server replaced) or silent is made up for by fallBack. Each job's
// client of the log is log-client.ts.
import { Worker } from 'bullmq';
import { readModelTransaction } from '#read-model/transaction.js';
import { closeWithin } from '../../close-within.js';
import { BINLOG_QUEUE, openQueue } from '../../queues.js';
import { assertFollowerSchedule } from '../sync-upkeep.js';
import {
  bytesBehind,
  currentBinlogPosition,
  readBinlogPosition,
  storeStartPosition,
  writeBinlogPosition,
} from './binlog-position.js';
import {
  follow,
  LogSilent,
  ServerReplaced,
  SILENCE_MS,
  type BinlogFollowerDeps,
  type LogState,
} from './log-client.js';

/** How often storing a position is tried again while a database cannot answer. */
const RETRY_START_MS = 2000;
/** The server's log files are listed for the bytes-behind metric at most this often. */
const STATUS_READ_MS = 3000;

/**
 * The server no longer holds the stored position (its files purged: error 1236), or holds the
 * log of another server: nothing after the position can be read, so the read model is repaired
 * from the tables themselves.
 */
function positionLost(error: unknown): boolean {
  return (error as { errno?: number } | null)?.errno === 1236 || error instanceof ServerReplaced;
}

/**
 * The server refuses the worker's user the log: grants lost (1227, REPLICATION SLAVE or BINLOG
 * MONITOR) or its login refused (1045). Nothing is lost meanwhile: the stored position is kept,
 * and once the log answers again it is read from there, changes made meanwhile included.
 */
function accessDenied(error: unknown): boolean {
  const errno = (error as { errno?: number } | null)?.errno;
  return errno === 1227 || errno === 1045;
}

export async function startBinlogFollower(deps: BinlogFollowerDeps) {
  let stopping = false;
  const stopListeners = new Set<() => void>();
  const queue = openQueue(BINLOG_QUEUE, deps.connection, deps.prefix);
  queue.on('error', (error) =>
    deps.log('error', 'queue:binlog', { err: error }, 'binlog queue error'),
  );
  await assertFollowerSchedule(queue);
  const state: LogState = {
    heardAt: undefined,
    caughtUpAt: undefined,
    silentSince: undefined,
    fellBack: false,
  };
  watchBinlogMetrics(deps, state);
  // Every table's runs wait for it (sync-runner.ts): every change committed during the first
  // loads lies after this position. Retried, so a worker started while a database is down
  // starts all the same, its tables stale until then.
  const positionStored = storeStartPositionOnceUp(deps, () => stopping);
  const worker = new Worker(
    BINLOG_QUEUE,
    () => followOnce(deps, state, { stopping: () => stopping, stopListeners }),
    {
      connection: deps.connection,
      prefix: deps.prefix,
      concurrency: 1,
      // As the tables' runs: a killed worker's follower is taken over within 6 + 3 s.
      lockDuration: 6_000,
      stalledInterval: 3_000,
    },
  );
  worker.on('failed', (_job, error) =>
    deps.log('warn', 'binlog-failed', { err: error }, 'binary log follower stopped; restarting'),
  );
  worker.on('error', (error) =>
    deps.log('error', 'worker:binlog', { err: error }, 'binlog worker error'),
  );
  return {
    queue,
    /** True once the start position is stored; false if the worker stopped first. */
    positionStored,
    async close() {
      stopping = true;
      for (const stop of stopListeners) stop();
      await Promise.allSettled([closeWithin(worker, deps.log), closeWithin(queue, deps.log)]);
    },
  };
}

/**
 * One job of the follower: a client of the log until the worker stops or the client fails; a
 * refused log is polled for, a lost or silent one fallen back from (decision 0016).
 */
async function followOnce(
  deps: BinlogFollowerDeps,
  state: LogState,
  control: { stopping: () => boolean; stopListeners: Set<() => void> },
) {
  if (control.stopping()) return;
  await firstLoadsDone(deps, control.stopping);
  if (control.stopping()) return;
  const startedAt = Date.now();
  let stop: (() => void) | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const following = follow(deps, state, reject);
      stop = () => void following.stop().then(resolve, reject);
      control.stopListeners.add(stop);
      following.done.then(resolve, reject);
    });
  } catch (error) {
    if (accessDenied(error)) {
      // Polled at the normal rate until a follower is let in again (next job, within 2 s).
      deps.log('warn', 'binlog-denied', { err: error }, 'binary log refused; polling');
      await deps.useSource('poll');
      return;
    }
    if (positionLost(error)) {
      await fallBack(deps, state, error, control.stopping);
      return;
    }
    // Silent: this client heard nothing for SILENCE_MS, or clients fail (a server down or
    // frozen) and none has heard anything for as long. Once fallen back, polling goes on
    // until the log answers; the failed client is restarted meanwhile, as any other.
    state.silentSince ??= Math.max(state.heardAt ?? 0, startedAt);
    const silent = error instanceof LogSilent || Date.now() - state.silentSince > SILENCE_MS;
    if (!silent || state.fellBack) throw error;
    await fallBack(deps, state, error, control.stopping);
  } finally {
    // A failed follower is restarted every 2 s during an outage: none is kept.
    if (stop) control.stopListeners.delete(stop);
  }
}

/** The follower's gauges: bytes behind the stored position, when last heard and caught up. */
function watchBinlogMetrics(deps: BinlogFollowerDeps, state: LogState) {
  let behind = { at: 0, bytes: 0 };
  deps.metrics?.watchBinlog({
    // From the stored position, so any worker's scrape tells, whichever one follows the log.
    async bytesBehind() {
      if (Date.now() - behind.at >= STATUS_READ_MS) {
        // Stamped first: a server that does not answer is not asked again at every scrape.
        const at = Date.now();
        behind = { ...behind, at };
        const from = await readBinlogPosition(deps.readModel);
        behind = { at, bytes: from ? await bytesBehind(deps, from) : 0 };
      }
      return behind.bytes;
    },
    lastHeardAt: () => state.heardAt,
    lastCaughtUpAt: () => state.caughtUpAt,
  });
}

async function storeStartPositionOnceUp(
  deps: BinlogFollowerDeps,
  stopping: () => boolean,
): Promise<boolean> {
  return (await onceUp(deps, () => storeStartPosition(deps), stopping)) !== undefined;
}

/** `task`'s result once the databases answer it, retried until then; undefined if stopped. */
async function onceUp<T>(
  deps: BinlogFollowerDeps,
  task: () => Promise<T>,
  stopping: () => boolean,
): Promise<T | undefined> {
  while (!stopping()) {
    try {
      return await task();
    } catch (error) {
      deps.log('warn', 'binlog-start', { err: error }, 'could not store the binary log position');
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_START_MS));
  }
  return undefined;
}

/**
 * Decision 0016's fallback: poll at the normal rate, store the log's end as the new position, run
 * a reconciliation pass of every table, then follow the log again from that position (the job
 * ends here; the scheduler starts the next one, whose first event sets the source back). Changes
 * made before the position are the pass's, those after it the log's. A silent server is polled
 * for (in vain while it is down) until it answers: the position is stored then.
 */
async function fallBack(
  deps: BinlogFollowerDeps,
  state: LogState,
  error: unknown,
  stopping: () => boolean,
) {
  deps.logger.warn(
    { err: error },
    error instanceof LogSilent || !positionLost(error)
      ? 'binary log silent; polling and a reconciliation pass, then the log again'
      : 'binary log position lost; polling and a reconciliation pass, then the log again',
  );
  state.fellBack = true;
  await deps.useSource('poll');
  const start = await onceUp(
    deps,
    async () => {
      const end = await currentBinlogPosition(deps);
      await readModelTransaction(deps.readModel, async (tx) => {
        await writeBinlogPosition(tx, end);
        // Counted for the console's sync health page.
        await tx.$executeRaw`UPDATE binlog_position
          SET fallbacks = fallbacks + 1, fell_back_at = now() WHERE id = 1`;
      });
      return end;
    },
    stopping,
  );
  if (!start) return;
  await deps.reconcileAll(new Date(), stopping);
  if (stopping()) return;
  deps.logger.info(
    { file: start.file, position: Number(start.position) },
    'reconciled; back to the binary log',
  );
}

/** Waits until every table has caught up once: the log is followed after the first loads. */
async function firstLoadsDone(deps: BinlogFollowerDeps, stopping: () => boolean) {
  const names = deps.tables.map((t) => t.name);
  while (!stopping()) {
    const loaded = await deps.readModel.syncState.count({
      where: { table_name: { in: names }, synced_at: { not: null } },
    });
    if (loaded === names.length) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
