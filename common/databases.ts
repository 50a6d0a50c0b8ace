// Creates the read model's Prisma client, the API's PostgreSQL. The dashboard's MySQL has a module
// of its own (legacy-database.ts): the operator's commands read the read model alone, and loading
// the MySQL driver was a tenth of each command's time.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient as ReadModelClient } from '#prisma/generated/read-model/client.js';

export { ReadModelClient };
export type { Prisma as ReadModelPrisma } from '#prisma/generated/read-model/client.js';

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

/**
 * Makes a client's `$disconnect` also end the pool it was made on. The Prisma adapters end a pool
 * they were given only once the ORM has run a query; a client whose reads all went through the
 * pool itself (a usage report, the worker's legacy reads) would keep its idle connections, and a
 * command-line process would wait for them (pg: idleTimeoutMillis, 30 s) before it exits.
 */
export function endPoolOnDisconnect(
  client: { $disconnect(): Promise<void> },
  endPool: () => Promise<void>,
): void {
  const disconnect = client.$disconnect.bind(client);
  client.$disconnect = async () => {
    await disconnect();
    await endPool();
  };
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
  endPoolOnDisconnect(client, async () => {
    if (!pool.ended) await pool.end();
  });
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
