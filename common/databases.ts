// Creates the two Prisma clients. The read model is the API's PostgreSQL; the legacy client talks
// to the dashboard's MySQL exactly as the dashboard does (session time zone +03:00).
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient as LegacyClient } from '../prisma/generated/legacy/client.js';
import { PrismaClient as ReadModelClient } from '../prisma/generated/read-model/client.js';

export { LegacyClient, ReadModelClient };
export type { Prisma as ReadModelPrisma } from '../prisma/generated/read-model/client.js';
export type { Prisma as LegacyPrisma } from '../prisma/generated/legacy/client.js';

/** The dashboard's connections all run in Istanbul time; DATETIME defaults depend on it. */
export const LEGACY_SESSION_TIME_ZONE = '+03:00';

const readModelPools = new WeakMap<ReadModelClient, pg.Pool>();

export function createReadModelClient(
  url: string,
  options: { poolSize?: number } = {},
): ReadModelClient {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // pg waits forever by default; a dead database must surface as an error instead.
    connectionTimeoutMillis: 5000,
  });
  // The pool is ours so the gateway's hottest reads can share it (readModelPool); $disconnect
  // still ends it.
  const client = new ReadModelClient({
    adapter: new PrismaPg(pool, { disposeExternalPool: true }),
  });
  readModelPools.set(client, pool);
  return client;
}

/**
 * The pg pool under a read-model client, for the few hot reads that skip the ORM's per-query
 * cost (gateway/src/http/scoped-sql.ts, docs/decisions/0005-fast-hot-path.md).
 */
export function readModelPool(db: ReadModelClient): pg.Pool {
  const pool = readModelPools.get(db);
  if (!pool) throw new Error('not a client made by createReadModelClient');
  return pool;
}

export function createLegacyClient(url: string, options: { poolSize?: number } = {}): LegacyClient {
  const parsed = new URL(url);
  const adapter = new PrismaMariaDb({
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: decodeURIComponent(parsed.pathname.replace(/^\//, '')),
    connectionLimit: options.poolSize ?? 5,
    connectTimeout: 5000,
    acquireTimeout: 10000,
    allowPublicKeyRetrieval: true,
    initSql: `SET time_zone = '${LEGACY_SESSION_TIME_ZONE}'`,
  });
  return new LegacyClient({ adapter });
}
