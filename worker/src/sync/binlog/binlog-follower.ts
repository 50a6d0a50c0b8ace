// Follows the legacy server's binary log (SYNC_SOURCE=binlog, docs/decisions/0016): row events
// only name the keys they touched; the committed transactions of up to BATCH_MS or BATCH_KEYS
// keys make a batch, applied by apply-changes.ts with the position of its last commit.
//
// One worker follows at a time: the follower is a BullMQ job on a queue of global concurrency
// one, as each table's sync is; a killed worker's job is handed to another once its lock lapses,
// and that one resumes from the stored position. The job ends when the worker stops, and fails
// on any error of the log (the next scheduled job starts a new client from the stored position).
// A log that refuses the worker's user (grants lost) is polled for meanwhile (accessDenied); a
// log lost (position purged, server replaced) or silent is made up for by fallBack.
import type { SyncSource } from '#common/config.js';
import ZongJi from '@vlasky/zongji';
import type { AnyBinlogEvent, RowsEvent } from '@vlasky/zongji';
import { Worker } from 'bullmq';
import { legacyConnectionOf } from '#common/legacy-database.js';
import { legacyTlsOf } from '#common/legacy-tls.js';
import type { ThrottledLog } from '#common/log-throttle.js';
import type { Logger } from '#common/logger.js';
import type { RedisClient } from '#common/redis.js';
import type { SyncTable } from '#read-model/table-definition.js';
import { readModelTransaction } from '#read-model/transaction.js';
import { closeWithin } from '../../close-within.js';
import { BINLOG_QUEUE, openQueue } from '../../queues.js';
import type { SyncDatabases } from '../sync-databases.js';
import type { SyncMetrics } from '../sync-metrics.js';
import { assertFollowerSchedule } from '../sync-upkeep.js';
import { applyChangedKeys, type ChangedKeys } from './apply-changes.js';
import { batchApplier, collectRowKeys, tablesByLegacyName } from './log-batches.js';
import {
  bytesBehind,
  currentBinlogPosition,
  readBinlogPosition,
  storeStartPosition,
  writeBinlogPosition,
  type BinlogPosition,
} from './binlog-position.js';

/** The server sends a heartbeat this often while idle; three missed mean the link is dead. */
const HEARTBEAT_MS = 1000;
const SILENCE_MS = 3 * HEARTBEAT_MS;
/** How often storing a position is tried again while a database cannot answer. */
const RETRY_START_MS = 2000;
/** The server's log files are listed for the bytes-behind metric at most this often. */
const STATUS_READ_MS = 3000;
/** The binary log client's id among the server's replicas: any id no real replica uses. */
const REPLICA_SERVER_ID = 0x5e_7c;

export interface BinlogFollowerDeps extends SyncDatabases {
  /** The worker's legacy URL: the log is read as the same user (REPLICATION grants). */
  legacyUrl: string;
  connection: RedisClient;
  prefix: string;
  tables: readonly SyncTable[];
  logger: Logger;
  log: ThrottledLog;
  metrics?: SyncMetrics;
  /** Sets the tables' polling rate and the source metrics and health name (sync-runner.ts). */
  useSource(source: SyncSource): Promise<void>;
  /** A reconciliation pass of every table begun after `since`, awaited. */
  reconcileAll(since: Date, stopped: () => boolean): Promise<void>;
}

/**
 * The server no longer holds the stored position (its files purged: error 1236), or holds the
 * log of another server: nothing after the position can be read, so the read model is repaired
 * from the tables themselves.
 */
function positionLost(error: unknown): boolean {
  return (error as { errno?: number } | null)?.errno === 1236 || error instanceof ServerReplaced;
}

class ServerReplaced extends Error {}

/** Neither event nor heartbeat for SILENCE_MS: the server, or the way to it, is gone. */
class LogSilent extends Error {}

/** Shared by the successive clients of the log (one job each). */
interface LogState {
  /** Unix ms of the last event or heartbeat heard, if any yet. */
  heardAt: number | undefined;
  /** Unix ms the read model was last caught up with the log: a batch applied, or a heartbeat
   *  (sent only while the server has nothing more) with nothing waiting to be applied. */
  caughtUpAt: number | undefined;
  /**
   * Unix ms silence is counted from while clients fail: the last event heard, or the start of the
   * first failed client if later (a worker taking the follower over after long without it).
   * Cleared by any event.
   */
  silentSince: number | undefined;
  /** From a fallback until the log answers again: silence meanwhile is no new fallback. */
  fellBack: boolean;
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

/** The binary-log client's connection (mysql2's options): the legacy URL's server, user, TLS. */
export function binlogConnectionOf(url: string) {
  const { host, port, user, password } = legacyConnectionOf(url);
  const tls = legacyTlsOf(url);
  return {
    host,
    port,
    user,
    ...(password ? { password } : {}),
    ...(tls ? { ssl: { ...tls, rejectUnauthorized: true } } : {}),
    // Values are not read (only keys are); text dates spare the decoding.
    dateStrings: true,
    charset: 'utf8mb4_general_ci',
  };
}

/** One client of the log from the stored position, until stopped or an error. */
function follow(deps: BinlogFollowerDeps, state: LogState, fail: (error: unknown) => void) {
  const byLegacyTable = tablesByLegacyName(deps.tables);
  const { database } = legacyConnectionOf(deps.legacyUrl);
  const client = new ZongJi(binlogConnectionOf(deps.legacyUrl));
  let file = '';
  let serverId = 0n;
  let gtid: string | null = null;
  /** Keys of the transaction being read, not yet committed. */
  let open: ChangedKeys = new Map();
  let failed = false;
  let lastHeard = Date.now();
  let answered = false;
  let settle: (() => void) | null = null;
  const done = new Promise<void>((resolve) => (settle = resolve));

  const stopWith = (error: unknown) => {
    if (failed) return;
    failed = true;
    batches.cancel();
    clearInterval(watchdog);
    client.stop();
    fail(error);
  };
  const batches = batchApplier({
    apply: (changed, position) => applyChangedKeys(deps, changed, position),
    applied: () => {
      state.caughtUpAt = Date.now();
    },
    failed: (error) => stopWith(error),
  });

  const heard = () => {
    lastHeard = Date.now();
    state.heardAt = lastHeard;
    state.silentSince = undefined;
  };
  onSocketData(client, heard);
  client.on('binlog', (event: AnyBinlogEvent) => {
    heard();
    if (!answered) {
      answered = true;
      logAnswers(deps, state);
    }
    const name = event.getEventName();
    if (name === 'heartbeat') {
      if (batches.idle()) state.caughtUpAt = lastHeard;
    } else if (name === 'rotate') {
      file = (event as AnyBinlogEvent & { binlogName: string }).binlogName;
    } else if (name === 'writerows' || name === 'updaterows' || name === 'deleterows') {
      collectRowKeys(open, byLegacyTable, event as RowsEvent & { rows: unknown[] });
    } else if (name === 'xid') {
      batches.commit({ serverId, file, position: BigInt(event.nextPosition), gtid }, open);
      open = new Map();
    } else if (event.gtid) {
      // MariaDB's GTID event opens each transaction: the position's GTID once it commits.
      gtid = event.gtid;
    }
  });
  client.on('error', stopWith);
  const watchdog = setInterval(() => {
    if (Date.now() - lastHeard > SILENCE_MS) {
      stopWith(new LogSilent(`no binary log event nor heartbeat for ${SILENCE_MS} ms`));
    }
  }, HEARTBEAT_MS);

  void (async () => {
    const from = await storedPositionOfThisServer(deps);
    serverId = from.serverId;
    file = from.file;
    gtid = from.gtid;
    lastHeard = Date.now();
    startReading(deps, client, from, {
      database,
      tables: [...byLegacyTable.keys()],
    });
  })().catch(stopWith);

  return {
    done,
    /**
     * Stops reading, applies what was committed and read, and resolves. A failed client's batch
     * is not applied: the next client reads it again from the stored position, which may be a
     * fallback's, later than this client's.
     */
    async stop() {
      clearInterval(watchdog);
      client.stop();
      if (!failed) batches.flush(true);
      await batches.applied();
      settle?.();
    },
  };
}

/**
 * Any event is a sign of life, the ones the client filters out too (other databases' rows): the
 * server sends no heartbeat while it streams events, so a long transaction elsewhere would
 * otherwise look like silence. Bytes on the log's socket are counted, from the moment the dump is
 * asked for (the socket is the TLS one by then, if the URL asks for TLS).
 */
function onSocketData(client: ZongJi, heard: () => void) {
  client.on('ready', () => {
    const socket = (client.connection as unknown as { stream?: NodeJS.ReadableStream } | null)
      ?.stream;
    socket?.on('data', heard);
  });
}

/** The log answers: back from polling, if the worker fell back to it. */
function logAnswers(deps: BinlogFollowerDeps, state: LogState) {
  state.fellBack = false;
  deps
    .useSource('binlog')
    .catch((error: unknown) =>
      deps.log('warn', 'binlog-source', { err: error }, 'could not set the sync source'),
    );
}

/** The stored position, if the legacy server is still the one it was read from. */
async function storedPositionOfThisServer(deps: BinlogFollowerDeps): Promise<BinlogPosition> {
  const from = await readBinlogPosition(deps.readModel);
  if (!from) throw new Error('no binary log position stored');
  const now = await currentBinlogPosition(deps);
  if (now.serverId !== from.serverId) {
    throw new ServerReplaced(
      `the legacy server is now server_id ${now.serverId}, not ${from.serverId}`,
    );
  }
  return from;
}

/** Asks the server for its log from `from`: the synced legacy tables' rows, with heartbeats. */
function startReading(
  deps: BinlogFollowerDeps,
  client: ZongJi,
  from: BinlogPosition,
  read: { database: string | undefined; tables: string[] },
) {
  client.start({
    serverId: REPLICA_SERVER_ID,
    filename: from.file,
    position: Number(from.position),
    ...(read.database ? { includeSchema: { [read.database]: read.tables } } : {}),
  });
  // Neither the library nor the server sends heartbeats unless the link asks for them. MySQL
  // 8.4 reads @source_heartbeat_period, MariaDB and older MySQL @master_heartbeat_period; both
  // are user variables, so each server reads its own and ignores the other.
  const period = HEARTBEAT_MS * 1_000_000;
  client.connection?.query(
    `SET @master_heartbeat_period = ${period}, @source_heartbeat_period = ${period}`,
  );
  deps.logger.info(
    { file: from.file, position: Number(from.position) },
    'following the binary log',
  );
}
