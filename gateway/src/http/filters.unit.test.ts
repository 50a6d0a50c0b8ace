import { describe, expect, it } from 'vitest';
import { decimalInteger, escapeLike, id } from './filters.js';

describe('escapeLike', () => {
  it('when a value holds %, _ or \\, then each is escaped with a backslash', () => {
    expect(escapeLike('%')).toBe('\\%');
    expect(escapeLike('a_b')).toBe('a\\_b');
    expect(escapeLike('c:\\d')).toBe('c:\\\\d');
    expect(escapeLike('%_\\')).toBe('\\%\\_\\\\');
  });

  it('when a value holds no LIKE character, then it is unchanged', () => {
    expect(escapeLike('ayşe yılmaz 0532')).toBe('ayşe yılmaz 0532');
  });
});

describe('decimalInteger', () => {
  it('when a value is decimal digits within bounds, then it is that number, leading zeros too', () => {
    expect(id.parse('7')).toBe(7);
    expect(id.parse('007')).toBe(7);
    expect(id.parse('2147483647')).toBe(2_147_483_647);
    expect(decimalInteger({ min: 0, max: 10 }).parse('0')).toBe(0);
  });

  it.each(['1e1', '0x10', '1.0', ' 1', '1 ', '+1', '-1', '', '0b1', 'Infinity', '１', '1_0'])(
    'when a value is %j, then it is refused however Number() reads it',
    (value) => {
      const result = id.safeParse(value);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.code).toBe('custom');
    },
  );

  it.each(['0', '2147483648', '9'.repeat(400)])(
    'when %s is digits outside the bounds, then it is refused',
    (value) => {
      expect(id.safeParse(value).success).toBe(false);
    },
  );

  it('when a value is not a string (a repeated query key), then it is refused', () => {
    expect(id.safeParse(['1', '2']).success).toBe(false);
    expect(id.safeParse(undefined).success).toBe(false);
  });
});
