// Creates the two Prisma clients. The read model is the API's PostgreSQL; the legacy client talks
// to the dashboard's MySQL exactly as the dashboard does (session time zone +03:00).
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient as LegacyClient } from '../prisma/generated/legacy/client.js';
import { PrismaClient as ReadModelClient } from '../prisma/generated/read-model/client.js';

export { LegacyClient, ReadModelClient };
export type { Prisma as ReadModelPrisma } from '../prisma/generated/read-model/client.js';
export type { Prisma as LegacyPrisma } from '../prisma/generated/legacy/client.js';

/** The dashboard's connections all run in Istanbul time; DATETIME defaults depend on it. */
export const LEGACY_SESSION_TIME_ZONE = '+03:00';

export function createReadModelClient(
  url: string,
  options: { poolSize?: number } = {},
): ReadModelClient {
  const adapter = new PrismaPg({
    connectionString: url,
    max: options.poolSize ?? 10,
    // pg waits forever by default; a dead database must surface as an error instead.
    connectionTimeoutMillis: 5000,
  });
  return new ReadModelClient({ adapter });
}

export interface LegacyClientOptions {
  poolSize?: number;
  connectTimeoutMs?: number;
  acquireTimeoutMs?: number;
  /** Seconds a statement waits for a row lock before failing (MySQL's default is 50). */
  lockWaitTimeoutSeconds?: number;
}

export function createLegacyClient(url: string, options: LegacyClientOptions = {}): LegacyClient {
  const parsed = new URL(url);
  const adapter = new PrismaMariaDb({
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: decodeURIComponent(parsed.pathname.replace(/^\//, '')),
    connectionLimit: options.poolSize ?? 5,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    acquireTimeout: options.acquireTimeoutMs ?? 10000,
    allowPublicKeyRetrieval: true,
    initSql: [
      `SET time_zone = '${LEGACY_SESSION_TIME_ZONE}'`,
      ...(options.lockWaitTimeoutSeconds
        ? [`SET SESSION innodb_lock_wait_timeout = ${options.lockWaitTimeoutSeconds}`]
        : []),
    ],
  });
  return new LegacyClient({ adapter });
}
