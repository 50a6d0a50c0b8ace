// The migrations in prisma/read-model/migrations, as Prisma lays them out
// (`<timestamp>_<name>/migration.sql`), with Prisma's checksum (SHA-256 of the file) and the one
// kind the runner applies outside a transaction: a concurrent index build, in a file of its own
// that starts with CONCURRENT_INDEX_MARKER (docs/decisions/0021-rolling-upgrades.md).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** The first line of a migration that builds one index CONCURRENTLY, outside a transaction. */
export const CONCURRENT_INDEX_MARKER = '-- concurrent index';

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
  /** The index a concurrent-index migration builds (as written, quoted or not); null otherwise. */
  concurrentIndex: string | null;
}

// One statement: CREATE [UNIQUE] INDEX CONCURRENTLY <name> ON ..., nothing after its semicolon.
const CONCURRENT_INDEX =
  /^CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)\s+ON\s[^;]+;?$/i;

/** The SQL without `--` comment lines, trimmed: what the server executes. */
const statementsOf = (sql: string) =>
  sql
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n')
    .trim();

function concurrentIndexOf(name: string, sql: string): string | null {
  const marked = sql.split('\n', 1)[0]?.trimEnd() === CONCURRENT_INDEX_MARKER;
  const statements = statementsOf(sql);
  if (!marked) {
    if (/\bCONCURRENTLY\b/i.test(statements)) {
      throw new Error(
        `migration ${name} uses CONCURRENTLY, which cannot run in a transaction: put the index in a migration of its own whose first line is "${CONCURRENT_INDEX_MARKER}"`,
      );
    }
    return null;
  }
  const index = CONCURRENT_INDEX.exec(statements)?.[1];
  if (!index) {
    throw new Error(
      `migration ${name} starts with "${CONCURRENT_INDEX_MARKER}" but is not one CREATE INDEX CONCURRENTLY statement`,
    );
  }
  return index;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return {
        name,
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
        concurrentIndex: concurrentIndexOf(name, sql),
      };
    });
}
