// A table's first load writes its rows with COPY, PostgreSQL's cheapest write path: no JSON to
// parse into records, no conflict check per row (docs/decisions/0002, first load). COPY has no
// ON CONFLICT, so it is only tried where the rows are new (see applyFirstLoadBatch), in a
// savepoint: a row already there (a resumed load, a row changed meanwhile) or a value PostgreSQL
// refuses fails the COPY, and the batch takes the upsert path instead.
//
// The rows travel in COPY's binary format: each value as the server stores it (integers as
// integers, instants as microseconds), so PostgreSQL parses no text (the instants' parsing was
// the largest part of a text COPY after the index insertions). A value with no binary form here
// (an integer out of its column's range, a text that is not the mapping's ISO form) refuses the
// batch's COPY, as PostgreSQL would have refused its text, and the batch takes the upsert path.
import { ident, join, sql } from './sql.js';
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import {
  daysFromCivil,
  fourDigitsAt,
  isCalendarDay,
  threeDigitsAt,
  twoDigitsAt,
} from './calendar.js';
import { recentInstantMs } from './legacy-values.js';
import type { ColumnType, ReadModelRow, ReadModelValue, SyncTable } from './table-definition.js';

/** A value this encoder cannot put in binary form: the batch's COPY is not tried. */
class NoBinaryForm extends Error {}

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** PostgreSQL's epoch (2000-01-01) in days and milliseconds since the Unix epoch. */
const PG_EPOCH_DAYS = 10_957;
const PG_EPOCH_MS = PG_EPOCH_DAYS * 86_400_000;
const TWO_TO_32 = 2 ** 32;

/**
 * Rows in COPY's binary format, written value by value into a Buffer as the rows are mapped: no
 * text of megabytes is built on the heap, and the Buffers are reused (`spareBuffers`), so a
 * batch's bytes cost the garbage collector nothing.
 */
export class CopyBuffer {
  private buffer: Buffer = spareBuffers.pop() ?? Buffer.allocUnsafeSlow(1 << 20);
  private readonly columns: readonly string[];
  private readonly types: readonly ColumnType[];
  length = 0;
  lines = 0;
  /** Why the rows cannot go by COPY (a value with no binary form here); null while they can. */
  refused: string | null = null;

  /**
   * The binary field of the read order every row of the batch gets after the table's columns
   * (read-order.ts); null for rows without one.
   */
  private readonly readOrderField: Buffer | null;

  constructor(table: Pick<SyncTable, 'columns'>, readOrder: bigint | null = null) {
    this.columns = Object.keys(table.columns);
    this.types = Object.values(table.columns);
    if (readOrder === null) this.readOrderField = null;
    else {
      this.readOrderField = Buffer.alloc(12);
      this.readOrderField.writeInt32BE(8, 0);
      this.readOrderField.writeBigInt64BE(readOrder, 4);
    }
    this.start();
  }

  /** Appends one row, its values in the table's column order. */
  append(row: ReadModelRow): void {
    if (this.refused !== null) return;
    const start = this.length;
    try {
      const readOrder = this.readOrderField;
      this.reserve(2);
      this.int16(this.columns.length + (readOrder ? 1 : 0));
      for (let i = 0; i < this.columns.length; i++) {
        this.value(this.types[i]!, row[this.columns[i]!]);
      }
      if (readOrder) {
        this.reserve(readOrder.length);
        this.length += readOrder.copy(this.buffer, this.length);
      }
      this.lines += 1;
    } catch (error) {
      if (!(error instanceof NoBinaryForm)) throw error;
      this.length = start;
      this.refused = error.message;
    }
  }

  /** The rows with COPY's trailer (a field count of -1). */
  bytes(): Buffer {
    this.reserve(2);
    this.buffer.writeInt16BE(-1, this.length);
    return this.buffer.subarray(0, this.length + 2);
  }

  /**
   * Gives the Buffer back for another batch. Only once its COPY succeeded: after a failed one the
   * socket may still hold a reference to bytes not sent yet.
   */
  recycle(): void {
    if (spareBuffers.length < SPARE_BUFFERS) spareBuffers.push(this.buffer);
    this.buffer = Buffer.alloc(0);
    this.length = 0;
    this.lines = 0;
  }

  private start(): void {
    this.length = SIGNATURE.copy(this.buffer, 0);
    this.int32(0); // flags: no OIDs
    this.int32(0); // no header extension
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(bigger, 0, 0, this.length);
    this.buffer = bigger;
  }

  // The writes below store bytes by index, big-endian, into room reserved beforehand: Buffer's
  // own writeInt32BE and write() check their arguments on every call, and a backfill makes
  // tens of millions of them (a Uint8Array element keeps the low 8 bits of what it is given).
  private int16(value: number): void {
    const buffer = this.buffer;
    const at = this.length;
    buffer[at] = value >>> 8;
    buffer[at + 1] = value;
    this.length = at + 2;
  }

  private int32(value: number): void {
    const buffer = this.buffer;
    const at = this.length;
    buffer[at] = value >>> 24;
    buffer[at + 1] = value >>> 16;
    buffer[at + 2] = value >>> 8;
    buffer[at + 3] = value;
    this.length = at + 4;
  }

  /** One field: its length (-1 for null), then its bytes in the column type's binary form. */
  private value(type: ColumnType, value: ReadModelValue | undefined): void {
    if (value === null || value === undefined) {
      this.reserve(4);
      this.int32(-1);
      return;
    }
    switch (type) {
      case 'text':
        return this.text(value);
      case 'int':
        this.reserve(8);
        this.int32(4);
        return this.int32(integer(value, -(2 ** 31), 2 ** 31 - 1));
      case 'bigint':
        return this.int64(integer(value, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
      case 'bool':
        if (typeof value !== 'boolean') throw new NoBinaryForm(`not a boolean: ${value}`);
        this.reserve(5);
        this.int32(1);
        this.buffer[this.length++] = value ? 1 : 0;
        return;
      case 'date':
        this.reserve(8);
        this.int32(4);
        return this.int32(daysOf(value) - PG_EPOCH_DAYS);
      case 'instant':
        return this.instant(value);
      case 'decimal':
        return this.numeric(value);
    }
  }

  /** UTF-8, encoded here for the common characters; from the first surrogate on by Buffer. */
  private text(value: ReadModelValue): void {
    if (typeof value !== 'string') throw new NoBinaryForm(`not a text: ${value}`);
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    this.reserve(4 + value.length * 3);
    const buffer = this.buffer;
    const lengthAt = this.length;
    let at = lengthAt + 4;
    let i = 0;
    for (; i < value.length; i++) {
      const c = value.charCodeAt(i);
      if (c < 0x80) {
        buffer[at++] = c;
      } else if (c < 0x800) {
        buffer[at++] = 0xc0 | (c >> 6);
        buffer[at++] = 0x80 | (c & 0x3f);
      } else if (c < 0xd800 || c > 0xdfff) {
        buffer[at++] = 0xe0 | (c >> 12);
        buffer[at++] = 0x80 | ((c >> 6) & 0x3f);
        buffer[at++] = 0x80 | (c & 0x3f);
      } else {
        at += buffer.write(value.slice(i), at);
        break;
      }
    }
    this.length = lengthAt;
    this.int32(at - lengthAt - 4);
    this.length = at;
  }

  private int64(value: number): void {
    this.reserve(12);
    const high = Math.floor(value / TWO_TO_32);
    this.int32(8);
    this.int32(high);
    this.int32(value - high * TWO_TO_32);
  }

  /** timestamptz: microseconds since 2000-01-01 UTC. */
  private instant(value: ReadModelValue): void {
    const ms = instantMs(value) - PG_EPOCH_MS;
    const micros = ms * 1000;
    if (Number.isSafeInteger(micros)) return this.int64(micros);
    // Centuries away from 2000: exact only as a bigint.
    this.reserve(12);
    this.int32(8);
    this.length = this.buffer.writeBigInt64BE(BigInt(ms) * 1000n, this.length);
  }

  /**
   * numeric: base-10000 digits with the weight of the first, a sign and the display scale (the
   * digits after the point); PostgreSQL applies the column's precision and scale as for text.
   */
  private numeric(value: ReadModelValue): void {
    const text = typeof value === 'string' ? value : '';
    const negative = text.charCodeAt(0) === 45; // '-'
    const first = negative ? 1 : 0;
    let point = text.indexOf('.');
    if (point < 0) point = text.length;
    const scale = point < text.length ? text.length - point - 1 : 0;
    if (point === first || (point < text.length && scale === 0))
      throw new NoBinaryForm(`not a decimal text: ${String(value)}`);
    // Base-10000 groups, the whole part aligned on the point: "12345.6" is 1|2345|6000.
    const digits = numericDigits;
    digits.length = 0;
    let group = 0;
    let inGroup = (4 - ((point - first) % 4)) % 4;
    let weight = -1;
    for (let i = first; i < text.length; i++) {
      if (i === point) continue;
      const digit = text.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) throw new NoBinaryForm(`not a decimal text: ${String(value)}`);
      group = group * 10 + digit;
      if (++inGroup === 4) {
        digits.push(group);
        if (i < point) weight += 1;
        group = 0;
        inGroup = 0;
      }
    }
    if (inGroup > 0) digits.push(group * 10 ** (4 - inGroup));
    let lead = 0;
    while (lead < digits.length && digits[lead] === 0) lead += 1;
    let end = digits.length;
    while (end > lead && digits[end - 1] === 0) end -= 1;
    const count = end - lead;
    this.reserve(12 + count * 2);
    this.int32(8 + count * 2);
    this.int16(count);
    this.int16(count === 0 ? 0 : weight - lead);
    this.int16(negative && count > 0 ? 0x4000 : 0);
    this.int16(scale);
    for (let i = lead; i < end; i++) this.int16(digits[i]!);
  }
}

/** The groups of the numeric being written, reused from value to value. */
const numericDigits: number[] = [];

function integer(value: ReadModelValue, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new NoBinaryForm(`integer out of range: ${String(value)}`);
  return value;
}

/** A `YYYY-MM-DD` date (the mapping's form) -> days since 1970-01-01. */
function daysOf(value: ReadModelValue): number {
  if (typeof value === 'string' && value.length === 10 && value[4] === '-' && value[7] === '-') {
    const days = daysOfText(value);
    if (!Number.isNaN(days)) return days;
  }
  throw new NoBinaryForm(`not a date text: ${String(value)}`);
}

/**
 * Days since 1970-01-01 of the `YYYY-MM-DD` at the start of `text`; NaN unless that day exists
 * (year 1 on). The binary form would carry a 30 February or a year 0 over into another day, where
 * PostgreSQL refuses the text: the batch then takes the upsert path, which sets the row aside.
 */
function daysOfText(text: string): number {
  const year = fourDigitsAt(text, 0);
  const month = twoDigitsAt(text, 5);
  const day = twoDigitsAt(text, 8);
  return isCalendarDay(year, month, day) ? daysFromCivil(year, month, day) : NaN;
}

/**
 * A `YYYY-MM-DDTHH:MM:SS.mmmZ` instant (the mapping's form, toISOString's) -> Unix ms: known
 * already when the mapping made the text just before (recentInstantMs), else read from it.
 */
function instantMs(value: ReadModelValue): number {
  const known = typeof value === 'string' ? recentInstantMs(value) : undefined;
  if (known !== undefined) return known;
  if (
    typeof value === 'string' &&
    value.length === 24 &&
    value[4] === '-' &&
    value[7] === '-' &&
    value[10] === 'T' &&
    value[13] === ':' &&
    value[16] === ':' &&
    value[19] === '.' &&
    value[23] === 'Z'
  ) {
    const hours = twoDigitsAt(value, 11);
    const minutes = twoDigitsAt(value, 14);
    const seconds = twoDigitsAt(value, 17);
    const ms =
      daysOfText(value) * 86_400_000 +
      hours * 3_600_000 +
      minutes * 60_000 +
      seconds * 1000 +
      threeDigitsAt(value, 20);
    // An hour 25 or a minute 60 would roll over into the next one, where PostgreSQL refuses the
    // text (its one exception, 24:00:00, is left to the upsert path too).
    if (!Number.isNaN(ms) && hours < 24 && minutes < 60 && seconds < 60) return ms;
  }
  throw new NoBinaryForm(`not an instant text: ${String(value)}`);
}

/**
 * Buffers kept for the next batches: a CopyBuffer lives while its batch is mapped and written,
 * one per table loading at once; six cover a backfill's big tables.
 */
const SPARE_BUFFERS = 6;
const spareBuffers: Buffer[] = [];

/**
 * COPY <table> (<columns>) FROM STDIN in binary format, the columns in the table's order, then
 * read_order for rows written with one (CopyBuffer).
 */
export function copyStatement(
  table: Pick<SyncTable, 'name' | 'columns'>,
  { withReadOrder }: { withReadOrder: boolean },
): string {
  const names = Object.keys(table.columns);
  const columns = (withReadOrder ? [...names, 'read_order'] : names).map(ident);
  // COPY takes no parameters: only its text is sent.
  return sql`COPY ${ident(table.name)} (${join(columns, ', ')}) FROM STDIN (FORMAT binary)`.text;
}

/** Sends `data` through `COPY ... FROM STDIN` on a connection; returns the rows copied. */
export async function copyIn(client: pg.PoolClient, statement: string, data: Buffer) {
  const stream = client.query(copyFrom(statement));
  stream.end(data);
  await finished(stream);
  return stream.rowCount;
}
