// Creates the two Prisma clients. The read model is the API's PostgreSQL; the legacy client talks
// to the dashboard's MySQL exactly as the dashboard does (session time zone +03:00).
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import type { EventEmitter } from 'node:events';
import * as mariadb from 'mariadb';
import pg from 'pg';
import { legacyTlsOf } from './legacy-tls.js';
import { PrismaClient as LegacyClient } from '#prisma/generated/legacy/client.js';
import { PrismaClient as ReadModelClient } from '#prisma/generated/read-model/client.js';

export { LegacyClient, ReadModelClient };
export type { Prisma as ReadModelPrisma } from '#prisma/generated/read-model/client.js';
export type { Prisma as LegacyPrisma } from '#prisma/generated/legacy/client.js';

/** The dashboard's connections all run in Istanbul time; DATETIME defaults depend on it. */
export const LEGACY_SESSION_TIME_ZONE = '+03:00';

export interface PoolOptions {
  poolSize?: number;
  /**
   * Bound on one query. The server cancels it (statement_timeout) when it is merely slow; the
   * client gives up on its own (query_timeout, the connection is then discarded) when the server
   * does not answer at all, e.g. a stopped (SIGSTOP) or unreachable host. Absent: no bound, for
   * one-off tools.
   */
  queryTimeoutMs?: number;
  /** Bound on opening a connection and on waiting for a free one in the pool. */
  connectTimeoutMs?: number;
  /**
   * The process's name on its connections (`application_name`): PostgreSQL's logs and
   * pg_stat_activity tell the worker's background statements from the gateway's requests by it.
   * One in the URL wins.
   */
  applicationName?: string;
}

const readModelPools = new WeakMap<ReadModelClient, pg.Pool>();

/**
 * A connection the server ends (shutdown, 57P01) can report more than one error, also one that
 * failed while connecting and that the pool has already let go; pg-pool listens for the first
 * only, and an 'error' event nobody listens to ends the process. Listened to from the moment it
 * exists, it cannot: queries still fail, and the pool still drops the connection.
 */
export class ListenedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }
}

export function createReadModelClient(url: string, options: PoolOptions = {}): ReadModelClient {
  const timeout = options.queryTimeoutMs;
  const pool = new pg.Pool({
    Client: ListenedClient,
    connectionString: url,
    max: options.poolSize ?? 10,
    // pg waits forever by default; a dead database must surface as an error instead.
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    // A half-open TCP connection (host gone) is noticed by the kernel, not only by a timeout.
    keepAlive: true,
    ...(options.applicationName ? { application_name: options.applicationName } : {}),
    ...(timeout
      ? {
          statement_timeout: timeout,
          // The client's bound fires a little after the server's, so a slow query is cancelled
          // cleanly by the server first and the connection stays usable.
          query_timeout: timeout + 250,
          idle_in_transaction_session_timeout: timeout * 4,
        }
      : {}),
  });
  // An idle connection the server ends is reported by the pool itself, and would end the process
  // just the same; the pool has already dropped it, and the next query opens another.
  pool.on('error', () => undefined);
  // The pool is ours so the gateway's hottest reads can share it (readModelPool); $disconnect
  // still ends it.
  const client = new ReadModelClient({
    adapter: new PrismaPg(pool, { disposeExternalPool: true }),
  });
  // The adapter ends the pool only if the client ever ran an ORM query. One that only read through
  // the pool (a usage report) would keep its idle connections, and a command-line process would
  // wait idleTimeoutMillis (30 s) before it exits.
  const disconnect = client.$disconnect.bind(client);
  client.$disconnect = async () => {
    await disconnect();
    if (!pool.ended) await pool.end();
  };
  readModelPools.set(client, pool);
  return client;
}

/**
 * The pg pool under a read-model client, for the few hot reads that skip the ORM's per-query
 * cost (api/scoped-sql.ts, docs/decisions/0005-fast-hot-path.md).
 */
export function readModelPool(db: ReadModelClient): pg.Pool {
  const pool = readModelPools.get(db);
  if (!pool) throw new Error('not a client made by createReadModelClient');
  return pool;
}

/** Where a mysql:// URL points, and how it is encrypted, as the MariaDB driver's options. */
export function legacyConnectionOf(url: string): mariadb.ConnectionConfig {
  const parsed = new URL(url);
  const tls = legacyTlsOf(url);
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: decodeURIComponent(parsed.pathname.replace(/^\//, '')) || undefined,
    // The driver writes a failed statement's parameters (a member's tc_no, phone) into the
    // error's message and `sql` unless told not to; the statement alone says what failed.
    logParam: false,
    ...(tls
      ? {
          ssl: {
            ...(tls.ca ? { ca: tls.ca } : {}),
            rejectUnauthorized: true,
            // The driver checks the name itself, after the handshake, unless told how.
            ...(tls.verifyIdentity ? {} : { checkServerIdentity: () => undefined }),
          },
        }
      : {}),
  };
}

/**
 * A mariadb pool that cannot open a connection in the background (MySQL away, slow or refusing)
 * emits 'error', and an 'error' event nobody listens to ends the process. The failure still
 * reaches whoever waits for a connection (acquireTimeout: a 503, a sync retry); the pool retries
 * with its own back-off.
 */
export function keepRunningOnPoolErrors(pool: mariadb.Pool): mariadb.Pool {
  // The driver's pool is an EventEmitter that forwards 'error'; its types leave that event out.
  (pool as unknown as EventEmitter).on('error', () => undefined);
  return pool;
}

const legacyPools = new WeakMap<LegacyClient, mariadb.Pool>();

/** The worker's and the tools' legacy client (the gateway's member writes have their own pool). */
export function createLegacyClient(url: string, options: PoolOptions = {}): LegacyClient {
  const pool = mariadb.createPool({
    ...legacyConnectionOf(url),
    connectionLimit: options.poolSize ?? 5,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    acquireTimeout: (options.connectTimeoutMs ?? 5000) * 2,
    // socketTimeout ends a connection whose server stopped answering (a frozen or vanished
    // host). The driver's queryTimeout is not used: it exists on MariaDB only, and the dashboard
    // may run on MySQL.
    ...(options.queryTimeoutMs ? { socketTimeout: options.queryTimeoutMs } : {}),
    allowPublicKeyRetrieval: true,
    // What the adapter sets on a pool it creates itself: prepared statements are not cached.
    prepareCacheLength: 0,
    initSql: [`SET time_zone = '${LEGACY_SESSION_TIME_ZONE}'`],
  });
  keepRunningOnPoolErrors(pool);
  // The pool is ours so the worker's legacy reads can share it (legacyPool); $disconnect still
  // ends it.
  const client = new LegacyClient({
    adapter: new PrismaMariaDb(pool, { disposeExternalPool: true }),
  });
  // The adapter ends the pool only once the ORM has connected, and the worker's reads may never
  // use the ORM (worker/src/sync/legacy-reader.ts): a pool left open keeps the process alive.
  const disconnect = client.$disconnect.bind(client);
  client.$disconnect = async () => {
    await disconnect();
    if (!pool.closed) await pool.end();
  };
  legacyPools.set(client, pool);
  return client;
}

/**
 * The mariadb pool under a legacy client, for the worker's legacy reads, which skip the ORM's
 * per-value conversions (worker/src/sync/legacy-reader.ts, docs/decisions/0002).
 */
export function legacyPool(db: LegacyClient): mariadb.Pool {
  const pool = legacyPools.get(db);
  if (!pool) throw new Error('not a client made by createLegacyClient');
  return pool;
}
