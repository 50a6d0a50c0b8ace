// A table's first load writes its rows with COPY, PostgreSQL's cheapest write path: no JSON to
// parse into records, no conflict check per row (docs/decisions/0002, backfill). COPY has no
// ON CONFLICT, so it is only tried where the rows are new (see applyLegacyRows' `firstLoad`), in
// a savepoint: a row already there (a resumed load, a row changed meanwhile) or a value
// PostgreSQL refuses fails the COPY, and the batch takes the upsert path instead.
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { ReadModelRow, ReadModelValue, SyncTable } from './table-definition.js';

const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPED = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** One value in COPY's text format (null is \N; backslash and the separators escaped). */
function copyValue(value: ReadModelValue | undefined): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string') {
    return NEEDS_ESCAPE.test(value) ? value.replace(ESCAPED, (c) => ESCAPES[c]!) : value;
  }
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return String(value);
}

/** Rows as COPY text, one line per row, the columns in `columns` order. */
export function copyText(columns: readonly string[], rows: readonly ReadModelRow[]): string {
  let text = '';
  for (const row of rows) {
    let line = copyValue(row[columns[0]!]);
    for (let i = 1; i < columns.length; i++) line += '\t' + copyValue(row[columns[i]!]);
    text += line + '\n';
  }
  return text;
}

/** COPY <table> (<columns>) FROM STDIN, the columns in `columns` order. */
export function copyStatement(table: SyncTable, columns: readonly string[]): string {
  return `COPY ${pg.escapeIdentifier(table.name)} (${columns.map(pg.escapeIdentifier).join(', ')}) FROM STDIN`;
}

/** Sends `text` through `COPY ... FROM STDIN` on a connection; returns the rows copied. */
export async function copyIn(client: pg.PoolClient, statement: string, text: string) {
  const stream = client.query(copyFrom(statement));
  stream.end(text);
  await finished(stream);
  return stream.rowCount;
}
