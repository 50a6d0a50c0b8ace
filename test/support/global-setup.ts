// Decides which PostgreSQL, MariaDB/MySQL and Redis servers the integration tests use:
// the URLs in DATABASE_URL / LEGACY_DATABASE_URL / REDIS_URL when given; otherwise containers
// when a Docker engine answers; otherwise the local servers on their default ports.
// Every test file then creates its own uniquely named databases on those servers.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  createReadModelTemplate,
  dropReadModelTemplate,
} from '../../scripts/throwaway-environment.js';
import { auditRunLogs } from './run-logs.js';
import { installDataDir } from './spare-mariadb.js';
import { privateDir, removeDir } from './spare-processes.js';

export interface TestServices {
  postgresUrl: string;
  mysqlUrl: string;
  redisUrl: string;
  runId: string;
  /** A spare MariaDB's data directory, installed once and copied by each spare (spare-mariadb.ts). */
  mariadbTemplate: string;
  /** A migrated read-model database on `postgresUrl`'s server, copied by each environment. */
  readModelTemplate: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    services: TestServices;
  }
}

const DEFAULTS = {
  postgresUrl: 'postgresql://postgres@127.0.0.1:5432/postgres',
  mysqlUrl: 'mysql://root@127.0.0.1:3306/mysql',
  redisUrl: 'redis://127.0.0.1:6379',
};

async function dockerAvailable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

export default async function setup(project: TestProject) {
  // Tests that drive npm scripts (clients, sync:verify, gateway) run the compiled processes; build
  // them once here rather than from several test files at once.
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const env = process.env;
  const stops: (() => Promise<unknown>)[] = [];
  const templateDir = privateDir('spare-mariadb-template-', null);
  const mariadbTemplate = join(templateDir, 'data');
  await installDataDir(mariadbTemplate);
  const given = env.DATABASE_URL || env.LEGACY_DATABASE_URL || env.REDIS_URL;
  let services: TestServices = {
    postgresUrl: env.DATABASE_URL || DEFAULTS.postgresUrl,
    mysqlUrl: env.LEGACY_DATABASE_URL || DEFAULTS.mysqlUrl,
    redisUrl: env.REDIS_URL || DEFAULTS.redisUrl,
    runId,
    mariadbTemplate,
    readModelTemplate: `t_${runId}_template`,
  };
  if (!given && (await dockerAvailable())) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const { MySqlContainer } = await import('@testcontainers/mysql');
    const { RedisContainer } = await import('@testcontainers/redis');
    const [postgres, mysql, redis] = await Promise.all([
      new PostgreSqlContainer('postgres:16-alpine').start(),
      new MySqlContainer('mysql:8.4').start(),
      new RedisContainer('redis:7-alpine').start(),
    ]);
    stops.push(
      () => postgres.stop(),
      () => mysql.stop(),
      () => redis.stop(),
    );
    services = {
      postgresUrl: postgres.getConnectionUri(),
      mysqlUrl: mysql.getConnectionUri(true),
      redisUrl: redis.getConnectionUrl(),
      runId,
      mariadbTemplate,
      readModelTemplate: services.readModelTemplate,
    };
  }
  await createReadModelTemplate(services.postgresUrl, services.readModelTemplate);
  project.provide('services', services);
  return async () => {
    await dropReadModelTemplate(services.postgresUrl, services.readModelTemplate);
    await Promise.all(stops.map((stop) => stop()));
    removeDir(templateDir);
    const problems = auditRunLogs(runId);
    if (problems.length > 0) throw new Error(`log audit of the whole run: ${problems.join('; ')}`);
  };
}
