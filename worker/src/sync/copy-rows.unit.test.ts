import { describe, expect, it } from 'vitest';
import { copyText } from './copy-rows.js';

describe('rows as COPY text', () => {
  it('when values hold separators or backslashes, then they are escaped; null is \\N', () => {
    const rows = [
      { id: 1, name: 'Tab\there\r\nnew \\N line', active: true, amount: '12.50', at: null },
      { id: 2, name: 'plain', active: false, amount: '0.00', at: '2026-11-21T07:00:00.000Z' },
    ];
    expect(copyText(['id', 'name', 'active', 'amount', 'at'], rows)).toBe(
      '1\tTab\\there\\r\\nnew \\\\N line\tt\t12.50\t\\N\n' +
        '2\tplain\tf\t0.00\t2026-11-21T07:00:00.000Z\n',
    );
  });
});
