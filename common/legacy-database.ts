// Creates the legacy Prisma client and the MariaDB driver's options: the dashboard's MySQL, talked
// to exactly as the dashboard does (session time zone +03:00).
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import type { EventEmitter } from 'node:events';
import * as mariadb from 'mariadb';
import { endPoolOnDisconnect, type PoolOptions } from './databases.js';
import { legacyTlsOf } from './legacy-tls.js';
import { PrismaClient as LegacyClient } from '#prisma/generated/legacy/client.js';

export { LegacyClient };
export type { Prisma as LegacyPrisma } from '#prisma/generated/legacy/client.js';

/** The dashboard's connections all run in Istanbul time; DATETIME defaults depend on it. */
export const LEGACY_SESSION_TIME_ZONE = '+03:00';

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
  // The worker's reads may never use the ORM (worker/src/sync/legacy-reader.ts).
  endPoolOnDisconnect(client, async () => {
    if (!pool.closed) await pool.end();
  });
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
