import { describe, expect, it } from 'vitest';
import { CopyBuffer, copyLine } from './copy-rows.js';

describe('rows as COPY text', () => {
  it('when values hold separators or backslashes, then they are escaped; null is \\N', () => {
    const rows = [
      { id: 1, name: 'Tab\there\r\nnew \\N line', active: true, amount: '12.50', at: null },
      { id: 2, name: 'plain', active: false, amount: '0.00', at: '2026-11-21T07:00:00.000Z' },
    ];
    const columns = ['id', 'name', 'active', 'amount', 'at'];
    expect(rows.map((row) => copyLine(columns, row)).join('')).toBe(
      '1\tTab\\there\\r\\nnew \\\\N line\tt\t12.50\t\\N\n' +
        '2\tplain\tf\t0.00\t2026-11-21T07:00:00.000Z\n',
    );
  });

  it('when the lines outgrow the Buffer, then it grows and keeps every UTF-8 byte', () => {
    const lines = Array.from(
      { length: 40_000 },
      (_, i) => `${i}\tŞükrü Işık İğdır ${'x'.repeat(i % 50)}\n`,
    );
    const copy = new CopyBuffer();
    for (const line of lines) copy.append(line);
    expect(copy.lines).toBe(lines.length);
    expect(copy.bytes().equals(Buffer.from(lines.join('')))).toBe(true);
    copy.recycle();
    expect(copy.length).toBe(0);
  });
});
