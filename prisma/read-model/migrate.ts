// `npm run db:migrate`: creates the API's PostgreSQL database if needed and applies the
// migrations in prisma/read-model/migrations, keeping Prisma's own _prisma_migrations ledger
// (same table, checksums and lock), so `prisma migrate deploy` and this runner agree about what
// is applied. Each migration runs under a lock_timeout, so it never holds a queue of requests
// behind a lock it waits for; a concurrent index is built outside a transaction. See
// docs/decisions/0001-migrations-without-schema-engine.md and 0021-rolling-upgrades.md.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { applyMigration, LOCK_RETRIES, type LockRetries } from './apply-migration.js';
import { MIGRATIONS_DIR, readMigrations, type Migration } from './migration-files.js';

export { readMigrations, type Migration } from './migration-files.js';

// The advisory lock key Prisma Migrate takes, so the two never run at once.
const PRISMA_MIGRATE_LOCK = 72707369;

export interface MigrateOptions {
  /** The migrations folder (tests make their own). */
  dir?: string;
  lockRetries?: LockRetries;
}

const LEDGER = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

interface LedgerRow {
  id: string;
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
}

async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const database = decodeURIComponent(target.pathname.slice(1));
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [
      database,
    ]);
    if (rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } catch (error) {
    // Another migrator may have created it between the check and the CREATE.
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await client.end();
  }
}

/**
 * The ledger row of a migration that failed earlier blocks the run, as Prisma's does, except for
 * a concurrent index: building it again is safe, so the row is marked rolled back, as
 * `prisma migrate resolve --rolled-back` would.
 */
async function settleFailed(client: pg.Client, migration: Migration, row: LedgerRow) {
  if (migration.concurrentIndex === null) {
    throw new Error(`migration ${migration.name} failed earlier; resolve it by hand`);
  }
  await client.query('UPDATE _prisma_migrations SET rolled_back_at = now() WHERE id = $1', [
    row.id,
  ]);
}

/** Applies pending migrations; returns the names applied. Refuses an edited applied migration. */
export async function migrateReadModel(
  url: string,
  options: MigrateOptions = {},
): Promise<string[]> {
  const migrations = readMigrations(options.dir ?? MIGRATIONS_DIR);
  const retries = options.lockRetries ?? LOCK_RETRIES;
  await ensureDatabase(url);
  const client = new pg.Client({ connectionString: url });
  // A connection lost mid-migration fails the pending query, which the run reports; the event
  // would otherwise end the process first.
  client.on('error', () => undefined);
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATE_LOCK]);
    await client.query(LEDGER);
    const { rows } = await client.query<LedgerRow>(
      'SELECT id, migration_name, checksum, finished_at FROM _prisma_migrations WHERE rolled_back_at IS NULL',
    );
    const done = new Map(rows.map((r) => [r.migration_name, r]));
    for (const migration of migrations) {
      const previous = done.get(migration.name);
      if (previous?.finished_at) {
        if (previous.checksum !== migration.checksum) {
          throw new Error(`migration ${migration.name} was edited after it was applied`);
        }
        continue;
      }
      if (previous) await settleFailed(client, migration, previous);
      try {
        await applyMigration(client, migration, retries);
      } catch (error) {
        const { message, detail } = error as { message: string; detail?: string };
        throw new Error(
          `migration ${migration.name} failed: ${message}${detail ? ` (${detail})` : ''}`,
          { cause: error },
        );
      }
      applied.push(migration.name);
    }
  } finally {
    await client
      .query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATE_LOCK])
      .catch(() => undefined);
    await client.end();
  }
  return applied;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { loadConfigOrExit } = await import('#common/config.js');
  const config = loadConfigOrExit();
  try {
    const applied = await migrateReadModel(config.db.url);
    console.log(
      applied.length > 0 ? `applied: ${applied.join(', ')}` : 'read model schema is up to date',
    );
  } catch (error) {
    console.error(`db:migrate failed: ${(error as Error).message}`);
    process.exit(1);
  }
  // The sandbox's databases follow the live schema; a sandbox that cannot be made leaves the
  // live installation as it is, and says what to set.
  if (config.sandbox.enabled) {
    const { prepareSandbox } = await import('#legacy-data/sandbox-club.js');
    try {
      console.log(await prepareSandbox(config, migrateReadModel));
    } catch (error) {
      console.error(
        `db:migrate: the sandbox could not be prepared (${(error as Error).message}); ` +
          'set SANDBOX_DATABASE_URL and SANDBOX_LEGACY_DATABASE_URL to databases this user may ' +
          'create, or SANDBOX=off',
      );
      process.exit(1);
    }
  }
}
