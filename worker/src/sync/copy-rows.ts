// A table's first load writes its rows with COPY, PostgreSQL's cheapest write path: no JSON to
// parse into records, no conflict check per row (docs/decisions/0002, backfill). COPY has no
// ON CONFLICT, so it is only tried where the rows are new (see applyFirstLoadBatch), in a
// savepoint: a row already there (a resumed load, a row changed meanwhile) or a value PostgreSQL
// refuses fails the COPY, and the batch takes the upsert path instead.
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

/** One row as a line of COPY text (with its newline), the columns in `columns` order. */
export function copyLine(columns: readonly string[], row: ReadModelRow): string {
  let line = copyValue(row[columns[0]!]);
  for (let i = 1; i < columns.length; i++) line += '\t' + copyValue(row[columns[i]!]);
  return line + '\n';
}

/**
 * COPY text written line by line into a Buffer as the rows are mapped: no text of megabytes is
 * built on the heap and converted again, and the Buffers are reused (`spareBuffers`), so a
 * batch's bytes cost the garbage collector nothing.
 */
export class CopyBuffer {
  private buffer: Buffer = spareBuffers.pop() ?? Buffer.allocUnsafeSlow(1 << 20);
  length = 0;
  lines = 0;

  append(line: string): void {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    if (this.length + line.length * 3 > this.buffer.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, line.length * 3));
      this.buffer.copy(bigger, 0, 0, this.length);
      this.buffer = bigger;
    }
    this.length += this.buffer.write(line, this.length);
    this.lines += 1;
  }

  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  /**
   * Gives the Buffer back for another batch. Only once its COPY succeeded: after a failed one the
   * socket may still hold a reference to bytes not sent yet.
   */
  recycle(): void {
    if (spareBuffers.length < SPARE_BUFFERS) spareBuffers.push(this.buffer);
    this.length = 0;
    this.lines = 0;
  }
}

/** As many as batches in flight at once (sync-engine.ts, BATCH_SLOTS). */
const SPARE_BUFFERS = 6;
const spareBuffers: Buffer[] = [];

/** COPY <table> (<columns>) FROM STDIN, the columns in `columns` order. */
export function copyStatement(table: SyncTable, columns: readonly string[]): string {
  return `COPY ${pg.escapeIdentifier(table.name)} (${columns.map(pg.escapeIdentifier).join(', ')}) FROM STDIN`;
}

/** Sends `data` through `COPY ... FROM STDIN` on a connection; returns the rows copied. */
export async function copyIn(client: pg.PoolClient, statement: string, data: Buffer) {
  const stream = client.query(copyFrom(statement));
  stream.end(data);
  await finished(stream);
  return stream.rowCount;
}
