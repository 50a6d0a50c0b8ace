// One isolated environment per test file: its own PostgreSQL database (migrated), its own legacy
// MySQL database (loaded from the project's copy of the dashboard dump), its own Redis prefix,
// all dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../common/config.js';
import { migrateReadModel } from '../../prisma/read-model/migrate.js';
import { connectLegacy, createLegacyDatabase } from '../../scripts/legacy/legacy-database.js';

export interface TestEnvironment {
  name: string;
  databaseUrl: string;
  legacyUrl: string;
  /** A MySQL user holding only SELECT on the legacy database. */
  legacyReadOnlyUrl: string;
  redisUrl: string;
  redisPrefix: string;
  /** Configuration as the processes would load it, with this environment's URLs. */
  config(overrides?: Record<string, string>): Config;
  destroy(): Promise<void>;
}

function withDatabase(
  serverUrl: string,
  database: string,
  credentials?: { user: string; password: string },
) {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  if (credentials) {
    url.username = credentials.user;
    url.password = credentials.password;
  }
  return url.toString();
}

export async function createTestEnvironment(): Promise<TestEnvironment> {
  const services = inject('services');
  const name = `t_${services.runId}_${randomBytes(3).toString('hex')}`;
  const databaseUrl = withDatabase(services.postgresUrl, name);
  const legacyUrl = withDatabase(services.mysqlUrl, name);
  const readOnly = {
    user: `ro_${randomBytes(4).toString('hex')}`,
    password: randomBytes(12).toString('hex'),
  };

  await migrateReadModel(databaseUrl);
  await createLegacyDatabase(legacyUrl);
  const admin = await connectLegacy(services.mysqlUrl, { database: null });
  try {
    await admin.query(`CREATE USER '${readOnly.user}'@'%' IDENTIFIED BY '${readOnly.password}'`);
    await admin.query(`GRANT SELECT ON \`${name}\`.* TO '${readOnly.user}'@'%'`);
  } finally {
    await admin.end();
  }

  const env: TestEnvironment = {
    name,
    databaseUrl,
    legacyUrl,
    legacyReadOnlyUrl: withDatabase(services.mysqlUrl, name, readOnly),
    redisUrl: services.redisUrl,
    redisPrefix: name,
    config: (overrides = {}) =>
      loadConfig({
        DATABASE_URL: databaseUrl,
        LEGACY_DATABASE_URL: legacyUrl,
        REDIS_URL: services.redisUrl,
        REDIS_PREFIX: name,
        PORT: '0',
        LOG_LEVEL: 'silent',
        ...overrides,
      }),
    async destroy() {
      const pgAdmin = new pg.Client({ connectionString: services.postgresUrl });
      await pgAdmin.connect();
      await pgAdmin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await pgAdmin.end();
      const mysqlAdmin = await connectLegacy(services.mysqlUrl, { database: null });
      await mysqlAdmin.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await mysqlAdmin.query(`DROP USER IF EXISTS '${readOnly.user}'@'%'`);
      await mysqlAdmin.end();
      await deleteRedisKeys(services.redisUrl, name);
    },
  };
  return env;
}

export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
