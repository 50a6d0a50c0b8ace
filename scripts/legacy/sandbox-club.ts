// The sandbox's generated club (docs/decisions/0024-sandbox.md): a dashboard database of its own
// filled by the demo's generator, and a read model of its own that the worker fills from it the
// way it fills the live one. Nothing here touches the live databases.
import pg from 'pg';
import type { Config } from '#common/config.js';
import { generateLegacyData } from './generate-data.js';
import { connectLegacy, createLegacyDatabase, databaseName } from './legacy-database.js';
import { seedLegacyDatabase } from './seed.js';

type SandboxConfig = Pick<Config, 'sandbox'>;
/** The read model's migration runner (prisma/read-model/migrate.ts), which runs this at its end. */
type Migrate = (url: string) => Promise<string[]>;

/**
 * Makes the sandbox's databases where they are missing: its read model migrated to this release
 * (each `npm run db:migrate` brings it along), its dashboard created and filled when it has no
 * member. One line for the operator.
 */
export async function prepareSandbox(config: SandboxConfig, migrate: Migrate): Promise<string> {
  const applied = await migrate(config.sandbox.dbUrl);
  const legacy = await seedLegacyDatabase(config.sandbox.legacyUrl);
  return `sandbox: read model ${applied.length > 0 ? `migrated (${applied.length})` : 'up to date'}; ${legacy}`;
}

/**
 * Generates the club afresh: a new dashboard database drawn from `seed`, then the read model
 * emptied in one statement, so the worker loads the new club as it loads a new installation.
 * Partners' subscriptions, clients and cursors live in the live database and stay; the old rows
 * leave the feed without deletes (the README says so).
 */
export async function resetSandbox(
  config: SandboxConfig,
  migrate: Migrate,
  seed: number,
): Promise<string> {
  const url = config.sandbox.legacyUrl;
  await createLegacyDatabase(url, { dropExisting: true });
  const conn = await connectLegacy(url);
  let counts: Record<string, number>;
  try {
    counts = await generateLegacyData(conn, { seed });
  } finally {
    await conn.end();
  }
  await migrate(config.sandbox.dbUrl);
  await emptyReadModel(config.sandbox.dbUrl);
  const summary = Object.entries(counts)
    .map(([table, n]) => `${n} ${table}`)
    .join(', ');
  return `sandbox ${databaseName(url)} generated afresh (seed ${seed}): ${summary}`;
}

/** Deadlock, or a lock not granted in time: the worker's sync held one of the tables. */
const LOCK_CONFLICTS = new Set(['40P01', '55P03']);
const EMPTY_TRIES = 10;

/**
 * Every table but the migrations' ledger, emptied at once. The worker's sync may hold some of
 * them while it waits for others: a conflict with it is tried again, with a bound on each wait.
 */
async function emptyReadModel(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT quote_ident(tablename) AS name FROM pg_tables
        WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations'`,
    );
    if (rows.length === 0) return;
    await client.query("SET lock_timeout = '2s'");
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`TRUNCATE ${rows.map((r) => r.name).join(', ')} RESTART IDENTITY`);
        return;
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        if (!LOCK_CONFLICTS.has(code) || attempt === EMPTY_TRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  } finally {
    await client.end();
  }
}
