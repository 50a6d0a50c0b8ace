// One isolated environment per test file, on the servers global-setup.ts chose.
import mariadb from 'mariadb';
import { inject } from 'vitest';
import { legacyConnectionOf } from '#common/legacy-database.js';
import {
  createThrowawayEnvironment,
  type ThrowawayEnvironment,
} from '../../scripts/throwaway-environment.js';
import { databaseName } from '../../scripts/legacy/legacy-database.js';
import { BINLOG_GRANTS, grantLegacyUser } from '../../scripts/legacy/legacy-users.js';
import type { SyncSource } from '#common/config.js';
import type { LinkKeys } from '../../gateway/src/pages/sign-in-links.js';
import { SpareMariaDb } from './spare-mariadb.js';

export type TestEnvironment = ThrowawayEnvironment;

/**
 * The tests' own SECRETS_KEY (32 bytes, base64), set explicitly rather than left to the
 * development default: tests that forge or check cursors sign with it (test/support/cursors.ts).
 */
export const TEST_SECRETS_KEY = Buffer.from('test-suite secrets key, 32 bytes').toString('base64');

/** Where a gateway of the tests keeps sign-in links (pages/sign-in-links.ts). */
export const testLinkKeys = (prefix: string): LinkKeys => ({
  prefix,
  secretsKeys: [TEST_SECRETS_KEY],
});

// Where a worker learns of legacy changes (SYNC_SOURCE, docs/decisions/0016): the sync, order and
// resilience tests run once with each, `describe.each(SYNC_SOURCES)`.
export { SYNC_SOURCES, type SyncSource } from '#common/config.js';

export interface TestEnvironmentOptions {
  /** The workers' SYNC_SOURCE (default poll); binlog needs a server writing the binary log. */
  syncSource?: SyncSource;
  /** Another PostgreSQL server than the suite's (a spare one). */
  postgresUrl?: string;
  /** Another Redis than the suite's (a cluster of the test's own). */
  redisUrl?: string;
  /**
   * The legacy server, a spare one the test owns. Without it, binlog gets a spare MariaDB of its
   * own writing the binary log (the suite's server may not), destroyed with the environment.
   */
  mariadb?: SpareMariaDb;
}

export async function createTestEnvironment(
  options: TestEnvironmentOptions = {},
): Promise<TestEnvironment> {
  const services = inject('services');
  const syncSource = options.syncSource ?? 'poll';
  const own =
    syncSource === 'binlog' && !options.mariadb
      ? await SpareMariaDb.start({ binaryLog: true })
      : null;
  const legacyServer = options.mariadb ?? own;
  try {
    const env = await createThrowawayEnvironment(
      {
        postgresUrl: options.postgresUrl ?? services.postgresUrl,
        mysqlUrl: legacyServer?.url ?? services.mysqlUrl,
        redisUrl: options.redisUrl ?? services.redisUrl,
      },
      `t_${services.runId}`,
      // The template lives on the suite's server only.
      { readModelTemplate: options.postgresUrl ? undefined : services.readModelTemplate },
    );
    if (syncSource === 'binlog') await grantReplication(env);
    return {
      ...env,
      config: (overrides = {}) =>
        env.config({ SECRETS_KEY: TEST_SECRETS_KEY, SYNC_SOURCE: syncSource, ...overrides }),
      async destroy() {
        try {
          await env.destroy();
        } finally {
          await own?.destroy();
        }
      },
    };
  } catch (error) {
    await own?.destroy();
    throw error;
  }
}

/** The grants `npm run sync:preflight` asks for, given to the worker's own user. */
async function grantReplication(env: ThrowawayEnvironment): Promise<void> {
  const admin = await mariadb.createConnection(legacyConnectionOf(env.legacyUrl));
  try {
    await grantLegacyUser(admin, databaseName(env.legacyUrl), workerUser(env), BINLOG_GRANTS);
  } finally {
    await admin.end();
  }
}

/** The worker's legacy user name (SELECT on the database; binlog: the replication grants). */
export function workerUser(env: TestEnvironment): string {
  return decodeURIComponent(new URL(env.legacyReadOnlyUrl).username);
}
