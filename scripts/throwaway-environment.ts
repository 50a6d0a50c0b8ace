// A throwaway environment on existing servers: its own PostgreSQL database (migrated), its own
// legacy MySQL database (loaded from the project's copy of the dashboard dump) with a SELECT-only
// user and the gateway's least-privilege user, and its own Redis prefix, all dropped by destroy().
// Used by every test file and benchmark so runs never collide.
import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import pg from 'pg';
import { loadConfig, type Config } from '#common/config.js';
import { clusterSeedsOf } from '#common/redis.js';
import { migrateReadModel } from '#prisma/read-model/migrate.js';
import { connectLegacy, createLegacyDatabase } from './legacy/legacy-database.js';
import {
  dropLegacyUser,
  GATEWAY_GRANTS,
  provisionLegacyUser,
  SYNC_GRANTS,
  type LegacyUser,
} from './legacy/legacy-users.js';

export interface ServerUrls {
  /** Any database on the PostgreSQL server (the path is replaced). */
  postgresUrl: string;
  /** Any database on the MySQL/MariaDB server, as a user that may create databases and users. */
  mysqlUrl: string;
  redisUrl: string;
}

export interface ThrowawayEnvironment {
  name: string;
  databaseUrl: string;
  legacyUrl: string;
  /** A MySQL user holding only SELECT on the legacy database. */
  legacyReadOnlyUrl: string;
  /** The gateway's user: SELECT on what member writes read, INSERT/UPDATE on two tables. */
  legacyGatewayUrl: string;
  redisUrl: string;
  redisPrefix: string;
  /** Configuration as the processes would load it, with this environment's URLs. */
  config(overrides?: Record<string, string>): Config;
  destroy(): Promise<void>;
}

/** The servers named by the operator variables (or their defaults). */
export function serverUrlsOf(config: Config): ServerUrls {
  return { postgresUrl: config.db.url, mysqlUrl: config.legacy.url, redisUrl: config.redis.url };
}

function withDatabase(
  serverUrl: string,
  database: string | null,
  credentials?: { user: string; password: string },
) {
  const url = new URL(serverUrl);
  url.pathname = database === null ? '/' : `/${database}`;
  if (credentials) {
    url.username = credentials.user;
    url.password = credentials.password;
  }
  return url.toString();
}

/**
 * Makes a migrated database named `name` on `postgresUrl`'s server, to be copied by
 * createThrowawayEnvironment: a copy takes a tenth of the time of running every migration.
 * Nothing may stay connected to it while it is copied.
 */
export async function createReadModelTemplate(postgresUrl: string, name: string): Promise<void> {
  await migrateReadModel(withDatabase(postgresUrl, name));
}

/** Drops what createReadModelTemplate made. */
export async function dropReadModelTemplate(postgresUrl: string, name: string): Promise<void> {
  await dropDatabase(postgresUrl, name);
}

async function dropDatabase(postgresUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: withDatabase(postgresUrl, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/**
 * The read model's database: a copy of `template` (on the same server), empty (`unmigrated`), or
 * migrated anew.
 */
async function createReadModelDatabase(
  postgresUrl: string,
  name: string,
  options: EnvironmentOptions,
): Promise<void> {
  const { readModelTemplate: template, unmigrated } = options;
  if (!template && !unmigrated) {
    await migrateReadModel(withDatabase(postgresUrl, name));
    return;
  }
  const admin = new pg.Client({ connectionString: withDatabase(postgresUrl, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
  } finally {
    await admin.end();
  }
}

export interface EnvironmentOptions {
  readModelTemplate?: string | undefined;
  /** An empty read model, for another release's migrations (bench/upgrade.ts). */
  unmigrated?: boolean;
}

export async function createThrowawayEnvironment(
  servers: ServerUrls,
  namePrefix: string,
  options: EnvironmentOptions = {},
): Promise<ThrowawayEnvironment> {
  const name = `${namePrefix}_${randomBytes(3).toString('hex')}`;
  const databaseUrl = withDatabase(servers.postgresUrl, name);
  const legacyUrl = withDatabase(servers.mysqlUrl, name);
  const account = (prefix: string): LegacyUser => ({
    user: `${prefix}_${randomBytes(4).toString('hex')}`,
    password: randomBytes(12).toString('hex'),
  });
  const readOnly = account('ro');
  const gateway = account('gw');

  await createReadModelDatabase(servers.postgresUrl, name, options);
  await createLegacyDatabase(legacyUrl);
  const admin = await connectLegacy(servers.mysqlUrl, { database: null });
  try {
    await provisionLegacyUser(admin, name, readOnly, SYNC_GRANTS);
    await provisionLegacyUser(admin, name, gateway, GATEWAY_GRANTS);
  } finally {
    await admin.end();
  }

  return {
    name,
    databaseUrl,
    legacyUrl,
    legacyReadOnlyUrl: withDatabase(servers.mysqlUrl, name, readOnly),
    legacyGatewayUrl: withDatabase(servers.mysqlUrl, name, gateway),
    redisUrl: servers.redisUrl,
    redisPrefix: name,
    config: (overrides = {}) =>
      loadConfig({
        DATABASE_URL: databaseUrl,
        LEGACY_DATABASE_URL: legacyUrl,
        REDIS_URL: servers.redisUrl,
        REDIS_PREFIX: name,
        PORT: '0',
        LOG_LEVEL: 'silent',
        // The sandbox's databases (`<name>_sandbox`) are made by the environments that use it.
        SANDBOX: 'off',
        ...overrides,
      }),
    async destroy() {
      await dropDatabase(servers.postgresUrl, name);
      await dropDatabase(servers.postgresUrl, `${name}_sandbox`);
      const mysqlAdmin = await connectLegacy(servers.mysqlUrl, { database: null });
      await mysqlAdmin.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await mysqlAdmin.query(`DROP DATABASE IF EXISTS \`${name}_sandbox\``);
      await dropLegacyUser(mysqlAdmin, readOnly);
      await dropLegacyUser(mysqlAdmin, gateway);
      await mysqlAdmin.end();
      await deleteRedisKeys(servers.redisUrl, name);
    },
  };
}

/** Deletes the prefix's keys on one server, or on every master of a cluster. */
export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const seeds = clusterSeedsOf(redisUrl);
  const cluster = seeds ? new Cluster(seeds.nodes) : null;
  try {
    if (cluster) await new Promise((resolve) => cluster.once('ready', resolve));
    const servers = cluster ? cluster.nodes('master') : [new Redis(redisUrl)];
    for (const redis of servers) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        // One key per DEL: keys of different slots cannot share a command on a cluster.
        await Promise.all(keys.map((key) => redis.del(key)));
        cursor = next;
      } while (cursor !== '0');
      if (!cluster) redis.disconnect();
    }
  } finally {
    cluster?.disconnect();
  }
}
