import { generateLegacyData } from './generate-data.js';
import {
  connectLegacy,
  createLegacyDatabase,
  databaseName,
  legacyDatabaseExists,
} from './legacy-database.js';

/**
 * Creates the legacy database from the dump if it is missing and fills it with generated demo
 * data if it has no member yet. A database with members is left alone, so a real dashboard
 * database is never touched. Returns what was done, for the operator.
 */
export async function seedLegacyDatabase(
  url: string,
  options: { scale?: number } = {},
): Promise<string> {
  const name = databaseName(url);
  const created = !(await legacyDatabaseExists(url));
  if (created) await createLegacyDatabase(url);
  const conn = await connectLegacy(url);
  try {
    const [row] = await conn.query<{ n: bigint }[]>('SELECT COUNT(*) AS n FROM members');
    if (Number(row?.n ?? 0) > 0) return `using the existing legacy database ${name}`;
    const counts = await generateLegacyData(conn, { scale: options.scale ?? 1 });
    const summary = Object.entries(counts)
      .map(([table, n]) => `${n} ${table}`)
      .join(', ');
    return `${created ? 'created' : 'filled'} legacy database ${name}: ${summary}`;
  } finally {
    await conn.end();
  }
}
