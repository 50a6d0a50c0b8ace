// One client of the legacy server's binary log (binlog-follower.ts runs one per job): it reads
// the synced tables' row events from the stored position, gathers each committed transaction's
// keys into batches (log-batches.ts), and fails with the reason the follower acts on: the log
// silent, its position lost, its server replaced.
import type { SyncSource } from '#common/config.js';
import ZongJi from '@vlasky/zongji';
import type { AnyBinlogEvent, RowsEvent } from '@vlasky/zongji';
import { legacyConnectionOf } from '#common/legacy-database.js';
import { legacyTlsOf } from '#common/legacy-tls.js';
import type { ThrottledLog } from '#common/log-throttle.js';
import type { Logger } from '#common/logger.js';
import type { RedisClient } from '#common/redis.js';
import type { SyncTable } from '#read-model/table-definition.js';
import type { SyncDatabases } from '../sync-databases.js';
import type { SyncMetrics } from '../sync-metrics.js';
import { applyChangedKeys, type ChangedKeys } from './apply-changes.js';
import { batchApplier, collectRowKeys, tablesByLegacyName } from './log-batches.js';
import {
  currentBinlogPosition,
  readBinlogPosition,
  type BinlogPosition,
} from './binlog-position.js';

/** The server sends a heartbeat this often while idle; three missed mean the link is dead. */
const HEARTBEAT_MS = 1000;
export const SILENCE_MS = 3 * HEARTBEAT_MS;
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

export class ServerReplaced extends Error {}

/** Neither event nor heartbeat for SILENCE_MS: the server, or the way to it, is gone. */
export class LogSilent extends Error {}

/** Shared by the successive clients of the log (one job each). */
export interface LogState {
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
export function follow(deps: BinlogFollowerDeps, state: LogState, fail: (error: unknown) => void) {
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
