// How one migration is applied: in a transaction under a short lock_timeout, or, for a concurrent
// index, outside one; either retried a bounded number of times when it timed out waiting for a
// lock. See docs/decisions/0021-rolling-upgrades.md.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Migration } from './migration-files.js';

/**
 * How long a migration's statement waits for a lock before it gives up. A statement waiting for
 * an exclusive lock queues every request behind it, so this bounds what a request waits for.
 */
export const LOCK_TIMEOUT_MS = 50;
/**
 * The same for a concurrent index build. Its waits (for the lock autovacuum may hold, for the
 * transactions that began before it) queue no request, so it waits longer: past autovacuum
 * giving way (deadlock_timeout, 1 s), short of hanging a deployment on a transaction left open.
 */
export const CONCURRENT_LOCK_TIMEOUT_MS = 60_000;

export interface LockRetries {
  /** Tries in all before a lock timeout fails the migration. */
  attempts: number;
  /** The rest before the n-th retry is n times this. */
  restMs: number;
}

export const LOCK_RETRIES: LockRetries = { attempts: 10, restMs: 500 };

const record = (client: pg.Client, migration: Migration) =>
  client.query(
    `INSERT INTO _prisma_migrations (id, checksum, migration_name, finished_at, applied_steps_count)
     VALUES (gen_random_uuid(), $1, $2, now(), 1)`,
    [migration.checksum, migration.name],
  );

async function applyInTransaction(client: pg.Client, migration: Migration): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL lock_timeout = ${LOCK_TIMEOUT_MS}`);
    await client.query(migration.sql);
    await record(client, migration);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

/** Drops the index when a build that failed or was cut short left it invalid. */
async function dropInvalidIndex(client: pg.Client, index: string): Promise<void> {
  const { rows } = await client.query<{ indisvalid: boolean }>(
    'SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)',
    [index],
  );
  if (rows[0]?.indisvalid === false) {
    await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index}`);
  }
}

async function indexExists(client: pg.Client, index: string): Promise<boolean> {
  const { rows } = await client.query<{ found: boolean }>(
    'SELECT to_regclass($1) IS NOT NULL AS found',
    [index],
  );
  return rows[0]?.found === true;
}

/**
 * Builds the index unless a run that was cut short after building it already did, then records
 * the migration. An index left invalid is dropped first, and dropped again when this build fails
 * (an invalid unique index may still refuse writes).
 */
async function applyConcurrentIndex(
  client: pg.Client,
  migration: Migration,
  index: string,
): Promise<void> {
  await client.query(`SET lock_timeout = ${CONCURRENT_LOCK_TIMEOUT_MS}`);
  await dropInvalidIndex(client, index);
  if (!(await indexExists(client, index))) {
    try {
      await client.query(migration.sql);
    } catch (error) {
      await dropInvalidIndex(client, index).catch(() => undefined);
      throw error;
    }
  }
  await record(client, migration);
}

const isLockTimeout = (error: unknown) => (error as { code?: string }).code === '55P03';

/** Applies the migration and records it in the ledger; throws with what went wrong. */
export async function applyMigration(
  client: pg.Client,
  migration: Migration,
  retries: LockRetries,
): Promise<void> {
  const index = migration.concurrentIndex;
  for (let attempt = 1; ; attempt++) {
    try {
      return await (index === null
        ? applyInTransaction(client, migration)
        : applyConcurrentIndex(client, migration, index));
    } catch (error) {
      if (!isLockTimeout(error)) throw error;
      if (attempt >= retries.attempts) {
        const waited = index === null ? LOCK_TIMEOUT_MS : CONCURRENT_LOCK_TIMEOUT_MS;
        throw new Error(
          `a lock it needs stayed taken through ${attempt} attempts of ${waited} ms each; look in pg_stat_activity for a long transaction on its tables, then run the migration again`,
          { cause: error },
        );
      }
      await sleep(retries.restMs * attempt);
    }
  }
}
