// A database of its own beside a test environment's, migrated by the read-model runner from a
// migrations folder the test writes, one migration at a time: the runner's behaviour on tables
// and migrations of the test's choosing, without touching the project's migrations.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { migrateReadModel, type MigrateOptions } from '#prisma/read-model/migrate.js';
import type { TestEnvironment } from './environment.js';
import { privateDir, removeDir } from './spare-processes.js';

export interface ScratchMigrations {
  url: string;
  /** Writes `<name>/migration.sql` into the folder; the next migrate() applies it. */
  add(name: string, sql: string): void;
  migrate(options?: Omit<MigrateOptions, 'dir'>): Promise<string[]>;
  /** A connected client on the database; ended by destroy(). */
  connect(): Promise<pg.Client>;
  destroy(): Promise<void>;
}

export function scratchMigrations(env: TestEnvironment, suffix: string): ScratchMigrations {
  const database = `${env.name}_${suffix}`;
  const target = new URL(env.databaseUrl);
  target.pathname = `/${database}`;
  const url = target.toString();
  const dir = privateDir('migrations-', null);
  const clients: pg.Client[] = [];
  return {
    url,
    add(name, sql) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'migration.sql'), sql);
    },
    migrate: (options = {}) => migrateReadModel(url, { ...options, dir }),
    async connect() {
      const client = new pg.Client({ connectionString: url });
      clients.push(client);
      // A client the test terminates on purpose must not take the test file down with it.
      client.on('error', () => undefined);
      await client.connect();
      return client;
    },
    async destroy() {
      await Promise.allSettled(clients.map((client) => client.end()));
      const admin = new pg.Client({ connectionString: env.databaseUrl });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      } finally {
        await admin.end();
      }
      removeDir(dir);
    },
  };
}
