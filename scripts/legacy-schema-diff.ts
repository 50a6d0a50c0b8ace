// What differs between the legacy MySQL/MariaDB database at LEGACY_DATABASE_URL and
// prisma/legacy/schema.prisma: "-" lines describe the database, "+" lines the schema; no output
// means they match. Run: npm run legacy:diff. Prisma's schema engine cannot do this offline (its
// WebAssembly build has no MySQL connector: it panics "Unsupported adapter provider: Mysql"), so
// information_schema and Prisma's DMMF are read side by side: each side in legacy-schema-diff/
// (database-schema.ts, prisma-schema.ts), every object made one line (schema-lines.ts); this file
// compares the lines.

import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describeMysqlDatabase } from './legacy-schema-diff/database-schema.js';
import { describePrismaSchema } from './legacy-schema-diff/prisma-schema.js';
import type { SchemaObjects } from './legacy-schema-diff/schema-lines.js';

export interface LegacySchemaDiffOptions {
  /** mysql://user:password@host:port/database; only information_schema is read. */
  legacyUrl: string;
  schemaPath?: string;
}

const legacySchemaPath = fileURLToPath(new URL('../prisma/legacy/schema.prisma', import.meta.url));

/** What differs between a live MySQL/MariaDB database and a Prisma schema; '' when nothing. */
export async function legacySchemaDiff(options: LegacySchemaDiffOptions): Promise<string> {
  const schemaPath = options.schemaPath ?? legacySchemaPath;
  const [database, schema] = await Promise.all([
    describeMysqlDatabase(options.legacyUrl),
    readFile(schemaPath, 'utf8').then(describePrismaSchema),
  ]);
  return renderObjectDiff(database, schema);
}

function renderObjectDiff(database: SchemaObjects, schema: SchemaObjects): string {
  const keys = [...new Set([...database.keys(), ...schema.keys()])].sort();
  const lines: string[] = [];
  for (const key of keys) {
    const [inDatabase, inSchema] = [database.get(key), schema.get(key)];
    if (inDatabase === inSchema) continue;
    if (inDatabase !== undefined) lines.push(`- ${inDatabase}`);
    if (inSchema !== undefined) lines.push(`+ ${inSchema}`);
  }
  return lines.length === 0 ? '' : ['--- database', '+++ schema.prisma', ...lines, ''].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const legacyUrl = process.env.LEGACY_DATABASE_URL;
  if (!legacyUrl) throw new Error('LEGACY_DATABASE_URL is not set');
  process.stdout.write(await legacySchemaDiff({ legacyUrl }));
}
