// The gateway's connection to the dashboard's database: a pool of its least-privilege MySQL user,
// for member writes only, and the two ways a write talks to it: one transaction per write, and
// statements sent together as one trip.
//
// A write's statements travel in groups, each group one multi-statement text query: one socket
// write and one answer per group instead of one per statement, which was most of a create's CPU
// time in the gateway (docs/decisions/0009-member-writes.md, "Cost of a write"). MySQL runs a
// group's statements in order and stops at the first that fails: the ones after it, a COMMIT
// included, never run, and the query rejects with that failure.
import * as mariadb from 'mariadb';
import {
  keepRunningOnPoolErrors,
  LEGACY_SESSION_TIME_ZONE,
  legacyConnectionOf,
} from '#common/legacy-database.js';
import { legacyQuery } from '#common/legacy-query.js';
import { serviceUnavailable } from '../../http/errors.js';

/** The gateway's legacy connection: a pool of its least-privilege MySQL user, for writes only. */
export interface GatewayLegacy {
  getConnection(): Promise<mariadb.PoolConnection>;
  end(): Promise<void>;
}

export type Connection = mariadb.PoolConnection;

/** A write that runs longer than this is abandoned: its connection is closed, MySQL rolls back. */
const TRANSACTION_LIMIT_MS = 8000;

/**
 * Short timeouts, so an unreachable or stuck MySQL answers 503 within seconds instead of holding
 * the request (the driver's defaults wait 10 s to connect, 50 s for a row lock). The pool is made
 * on the first write: the gateway starts and serves reads while MySQL is away.
 */
export function createGatewayLegacyPool(url: string): GatewayLegacy {
  const config: mariadb.PoolConfig = {
    ...legacyConnectionOf(url),
    connectionLimit: 10,
    connectTimeout: 1500,
    acquireTimeout: 2000,
    allowPublicKeyRetrieval: true,
    // Groups of statements as one query (inOneTrip). Values are never part of the SQL text: the
    // driver escapes each one into its `?` (client side), and the statements are this module's
    // own constants; the user's grants bound what any statement could do.
    multipleStatements: true,
    initSql: [
      // Istanbul wall clock, as the dashboard's own connections: NOW() and DATETIME defaults.
      `SET time_zone = '${LEGACY_SESSION_TIME_ZONE}'`,
      'SET SESSION innodb_lock_wait_timeout = 3',
      // Every transaction of this pool is a member write; set once, not per transaction.
      'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED',
      // The driver escapes quotes in values with a backslash, whatever the server's mode; a
      // dashboard server running NO_BACKSLASH_ESCAPES would read that backslash as a character
      // and the quote as the string's end. This session drops that one mode, keeps the rest.
      `SET SESSION sql_mode = TRIM(BOTH ',' FROM
        REPLACE(CONCAT(',', @@SESSION.sql_mode, ','), ',NO_BACKSLASH_ESCAPES,', ','))`,
    ],
  };
  let pool: mariadb.Pool | undefined;
  return {
    getConnection: () =>
      (pool ??= keepRunningOnPoolErrors(mariadb.createPool(config))).getConnection(),
    end: async () => pool?.end(),
  };
}

/** A statement of a trip; `T` is what its result is read as. */
export interface Statement<T> {
  sql: string;
  values: unknown[];
  /** Never set: carries `T` for inOneTrip's result. */
  readonly result?: T;
}

/** A statement answering rows. */
export const rows = <T>(sql: string, values: unknown[] = []): Statement<T[]> => ({ sql, values });

/** A statement answering an OK packet (affected rows, insert id). */
export const change = (sql: string, values: unknown[] = []): Statement<mariadb.UpsertResult> => ({
  sql,
  values,
});

/**
 * Sends `statements` as one query and resolves to their results, in order. When one fails, the
 * ones after it did not run, and the promise rejects once the whole answer is in (so a ROLLBACK
 * sent next never races a statement still on the wire).
 */
export async function inOneTrip<T extends unknown[]>(
  connection: Connection,
  ...statements: { [K in keyof T]: Statement<T[K]> }
): Promise<T> {
  const sql = statements.map((s) => s.sql).join(';\n');
  const values = statements.flatMap((s) => s.values);
  const results = await legacyQuery<unknown>(connection, sql, values);
  // One statement answers its result alone; several answer one result each.
  const each = statements.length === 1 ? [results] : (results as unknown[]);
  if (each.length !== statements.length) {
    throw new Error(`${statements.length} statements answered ${each.length} results`);
  }
  return each as T;
}

/**
 * One transaction on one pooled connection. `work` opens it (START TRANSACTION travels with the
 * first statements) and commits it; when `work` fails, what it left open is rolled back.
 */
export async function inTransaction<T>(
  legacy: GatewayLegacy,
  work: (connection: Connection) => Promise<T>,
): Promise<T> {
  const connection = await legacy.getConnection();
  let abandoned = false;
  const limit = setTimeout(() => {
    abandoned = true;
    connection.destroy();
  }, TRANSACTION_LIMIT_MS);
  try {
    return await work(connection);
  } catch (error) {
    // The driver sends ROLLBACK unless it saw the transaction end (a COMMIT that ran).
    if (!abandoned) await connection.rollback().catch(() => connection.destroy());
    // Abandoned: the statements failed because their connection was closed; MySQL rolls back.
    throw abandoned ? serviceUnavailable(1) : error;
  } finally {
    clearTimeout(limit);
    if (!abandoned) await connection.release().catch(() => undefined);
  }
}
