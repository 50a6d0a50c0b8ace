// Creating a legacy database from the project's copy of the dashboard dump (prisma/legacy/
// schema.sql), over a connection configured as the dashboard's own.
import { readFileSync } from 'node:fs';
import * as mariadb from 'mariadb';
import { legacyConnectionOf } from '#common/legacy-database.js';

export const LEGACY_DUMP_PATH = new URL('../../prisma/legacy/schema.sql', import.meta.url);

export function connectLegacy(
  url: string,
  options: { database?: string | null; multipleStatements?: boolean } = {},
) {
  const connection = legacyConnectionOf(url);
  const database =
    options.database === null ? undefined : (options.database ?? connection.database);
  return mariadb.createConnection({
    ...connection,
    database: database || undefined,
    multipleStatements: options.multipleStatements ?? false,
    // Every dashboard connection runs in Istanbul time.
    initSql: "SET time_zone = '+03:00'",
    allowPublicKeyRetrieval: true,
  });
}

export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}

export async function legacyDatabaseExists(url: string): Promise<boolean> {
  const conn = await connectLegacy(url, { database: null });
  try {
    const rows = await conn.query<unknown[]>(
      'SELECT 1 FROM information_schema.tables WHERE table_schema = ? AND table_name = ?',
      [databaseName(url), 'members'],
    );
    return rows.length > 0;
  } finally {
    await conn.end();
  }
}

/** Creates the database (dropping a previous one when asked) and loads the dump into it. */
export async function createLegacyDatabase(
  url: string,
  options: { dropExisting?: boolean } = {},
): Promise<void> {
  const name = databaseName(url).replace(/`/g, '``');
  const admin = await connectLegacy(url, { database: null });
  try {
    if (options.dropExisting) await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.query(
      `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_turkish_ci`,
    );
  } finally {
    await admin.end();
  }
  const conn = await connectLegacy(url, { multipleStatements: true });
  try {
    await conn.query(readFileSync(LEGACY_DUMP_PATH, 'utf8'));
  } finally {
    await conn.end();
  }
}
