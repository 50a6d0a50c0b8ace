import pg from 'pg';
import { describe, expect } from 'vitest';
import { migrationDiff, readModelDatabaseDiff } from '../../scripts/migration-diff.js';
import { envTest as it } from '../support/fixtures.js';

// prisma/read-model/schema.prisma generates the client; the migrations (applied by our own runner,
// not Prisma Migrate) build the database. Both must describe the same tables.

describe('prisma/read-model', () => {
  it('when the migrations are replayed in a shadow database, then they build exactly schema.prisma', async ({
    env,
  }) => {
    // Any database on the server serves as the connection the shadow database is created from;
    // the environment's own is certain to exist, and its contents are not read.
    const diff = await migrationDiff({ databaseUrl: env.databaseUrl });
    expect(diff, `migrations and schema.prisma disagree; a migration would be:\n${diff}`).toBe('');
  });

  it('when a database is migrated by migrateReadModel, then it matches schema.prisma', async ({
    env,
  }) => {
    const diff = await readModelDatabaseDiff({ databaseUrl: env.databaseUrl });
    expect(diff, `the migrated database differs from schema.prisma by:\n${diff}`).toBe('');
  });

  it('when a database is migrated, then the webhook tables are analysed only after a million changes, not each tenth', async ({
    env,
  }) => {
    // Outside schema.prisma, so outside the diffs above: per-table autovacuum settings.
    const client = new pg.Client({ connectionString: env.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ relname: string; reloptions: string[] | null }>(
        `SELECT relname, reloptions FROM pg_class
          WHERE relname IN ('webhook_events', 'webhook_attempts', 'members') ORDER BY relname`,
      );
      const analysedAfter = [
        'autovacuum_analyze_scale_factor=5',
        'autovacuum_analyze_threshold=1000000',
      ];
      expect(rows).toEqual([
        { relname: 'members', reloptions: null },
        { relname: 'webhook_attempts', reloptions: analysedAfter },
        { relname: 'webhook_events', reloptions: analysedAfter },
      ]);
    } finally {
      await client.end();
    }
  });
});
