import { describe, expect, it } from 'vitest';
import { CopyBuffer } from './copy-rows.js';

const table = { columns: { id: 'int', name: 'text', at: 'instant' } } as const;

describe('rows in COPY binary form', () => {
  it('when the rows outgrow the Buffer, then it grows and keeps every UTF-8 byte', () => {
    const names = Array.from(
      { length: 40_000 },
      (_, i) => `Şükrü Işık İğdır ${'x'.repeat(i % 50)}`,
    );
    const copy = new CopyBuffer(table);
    names.forEach((name, id) => copy.append({ id, name, at: null }));
    expect(copy.lines).toBe(names.length);
    const bytes = copy.bytes();
    // Signature, flags and header extension; then per row a field count, three lengths, the
    // four bytes of the id and the name's bytes; then the trailer.
    const expected =
      19 + names.reduce((sum, name) => sum + 2 + 4 + 4 + 4 + Buffer.byteLength(name) + 4, 0) + 2;
    expect(bytes.length).toBe(expected);
    expect(bytes.subarray(0, 11).toString('latin1')).toBe('PGCOPY\n\xff\r\n\0');
    expect(bytes.includes(Buffer.from(names.at(-1)!))).toBe(true);
    expect(bytes.readInt16BE(bytes.length - 2)).toBe(-1);
    copy.recycle();
    expect(copy.length).toBe(0);
  });

  it('when a value has no binary form, then the rows are refused, with the reason', () => {
    const copy = new CopyBuffer(table);
    copy.append({ id: 1, name: 'a', at: '2026-11-21T07:00:00.000Z' });
    expect(copy.refused).toBeNull();
    copy.append({ id: 2 ** 31, name: 'b', at: null });
    expect(copy.refused).toMatch(/out of range/);
    const other = new CopyBuffer(table);
    other.append({ id: 3, name: 'c', at: '2026-11-21 07:00:00' });
    expect(other.refused).toMatch(/not an instant/);
  });
});
