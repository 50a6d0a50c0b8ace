// A PostgreSQL primary with a streaming hot standby, both of the test's own (spare loopback
// ports, temp dirs): replica lag, a paused replay and a replica outage are rehearsed here. A
// database created on the primary appears on the replica too, so a throwaway environment made on
// primaryUrl can be read through replicaUrl.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { binDir, SparePostgres } from './spare-postgres.js';
import { freePort, osUser, privateDir, waitUntil } from './spare-processes.js';

/** One statement on its own connection, so a stopped or restarted server leaves nothing stale. */
async function queryOne<Row>(
  port: number,
  sql: string,
  params: unknown[] = [],
  database = 'postgres',
): Promise<Row> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database });
  await client.connect();
  try {
    const { rows } = await client.query(sql, params);
    return rows[0] as Row;
  } finally {
    await client.end();
  }
}

/** A copy of the primary (pg_basebackup) that starts as a standby streaming from it. */
class StandbyPostgres extends SparePostgres {
  protected override readonly readyLine = /ready to accept read-only connections/;

  static async cloneOf(primary: SparePostgres): Promise<StandbyPostgres> {
    const user = process.getuid?.() === 0 ? osUser('postgres') : null;
    const standby = new StandbyPostgres(
      await freePort(),
      privateDir('spare-pg-replica-', user),
      user,
    );
    try {
      await promisify(execFile)(
        join(binDir(), 'pg_basebackup'),
        [
          ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres'],
          // -R writes primary_conninfo and standby.signal; the slot keeps the primary from
          // recycling WAL the replica has not fetched while a test holds it stopped.
          ...['-D', standby.dataDir, '-R', '-X', 'stream', '-C', '-S', 'spare_replica'],
          // A fast checkpoint: the default spreads it out, for seconds of an idle server.
          ...['-c', 'fast', '--no-sync'],
        ],
        { timeout: 60_000, ...(user ?? {}) },
      );
      await standby.start();
    } catch (error) {
      await standby.destroy();
      throw error;
    }
    return standby;
  }
}

export class PrimaryWithReplica {
  private constructor(
    readonly primary: SparePostgres,
    readonly replica: SparePostgres,
  ) {}

  static async start(): Promise<PrimaryWithReplica> {
    // initdb -A trust already lets 127.0.0.1 open replication connections, and the defaults
    // (wal_level replica, max_wal_senders 10, hot_standby on) are what streaming needs.
    const primary = await SparePostgres.start();
    let replica: StandbyPostgres;
    try {
      // pg_stat_statements for replicaReads; the clone inherits the setting and the extension.
      await queryOne(
        primary.port,
        "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'",
      );
      await primary.stop();
      await primary.start();
      await queryOne(primary.port, 'CREATE EXTENSION pg_stat_statements');
      replica = await StandbyPostgres.cloneOf(primary);
    } catch (error) {
      await primary.destroy();
      throw error;
    }
    const servers = new PrimaryWithReplica(primary, replica);
    try {
      await servers.waitForStreaming(30_000);
    } catch (error) {
      await servers.destroy();
      throw error;
    }
    return servers;
  }

  /** Like SparePostgres.url: the database path is for the test to replace. */
  get primaryUrl(): string {
    return this.primary.url;
  }

  get replicaUrl(): string {
    return this.replica.url;
  }

  /**
   * Replay stops at the next WAL record (streaming goes on): the replica keeps answering, with
   * older data. Resolves once the replica reports the pause in effect. A restart resumes it.
   */
  async pauseReplay(): Promise<void> {
    await queryOne(this.replica.port, 'SELECT pg_wal_replay_pause()');
    await waitUntil('replay pause', 10_000, async () => {
      const row = await queryOne<{ state: string }>(
        this.replica.port,
        'SELECT pg_get_wal_replay_pause_state() AS state',
      );
      return row.state === 'paused';
    });
  }

  async resumeReplay(): Promise<void> {
    await queryOne(this.replica.port, 'SELECT pg_wal_replay_resume()');
  }

  /** A fast shutdown of the replica: its clients see 57P01, then connection refused. */
  async stopReplica(): Promise<void> {
    await this.replica.stop();
  }

  /** The replica again, same port and data; resolves once it streams from the primary. */
  async startReplica(): Promise<void> {
    await this.replica.start();
    await this.waitForStreaming(30_000);
  }

  /**
   * Until the replica has replayed everything the primary had written when this was called.
   * The target is the insert position, not pg_current_wal_lsn(): the servers run with
   * synchronous_commit off, so a commit may not be written yet when its client sees it done.
   */
  async waitForReplay(timeoutMs = 10_000): Promise<void> {
    const { lsn } = await queryOne<{ lsn: string }>(
      this.primary.port,
      'SELECT pg_current_wal_insert_lsn() AS lsn',
    );
    await waitUntil(`replay up to ${lsn}`, timeoutMs, async () => {
      const row = await queryOne<{ done: boolean | null }>(
        this.replica.port,
        'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done',
        [lsn],
      );
      return row.done === true;
    });
  }

  /**
   * Statements the replica has run in that database: how many reads it served. Counted by
   * pg_stat_statements, which counts each statement as it ends; pg_stat_database would be
   * simpler, but a backend that stays connected (a pool's) reports to it only every 10 s or so.
   */
  async replicaReads(database: string): Promise<number> {
    const row = await queryOne<{ reads: string }>(
      this.replica.port,
      `SELECT coalesce(sum(calls), 0) AS reads FROM pg_stat_statements
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)`,
      [database],
    );
    return Number(row.reads);
  }

  async destroy(): Promise<void> {
    await this.replica.destroy();
    await this.primary.destroy();
  }

  private async waitForStreaming(timeoutMs: number): Promise<void> {
    await waitUntil('replica streaming', timeoutMs, async () => {
      const sender = await queryOne<{ streaming: boolean }>(
        this.primary.port,
        "SELECT count(*) > 0 AS streaming FROM pg_stat_replication WHERE state = 'streaming'",
      );
      const receiver = await queryOne<{ recovering: boolean; received: boolean }>(
        this.replica.port,
        'SELECT pg_is_in_recovery() AS recovering, pg_last_wal_receive_lsn() IS NOT NULL AS received',
      );
      return sender.streaming && receiver.recovering && receiver.received;
    });
  }
}
