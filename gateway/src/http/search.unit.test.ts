import { describe, expect, it } from 'vitest';
import { likeLiteral } from './search.js';

describe('likeLiteral', () => {
  it('when a value holds %, _ or \\, then each is escaped with a backslash', () => {
    expect(likeLiteral('%')).toBe('\\%');
    expect(likeLiteral('a_b')).toBe('a\\_b');
    expect(likeLiteral('c:\\d')).toBe('c:\\\\d');
    expect(likeLiteral('%_\\')).toBe('\\%\\_\\\\');
  });

  it('when a value holds no LIKE character, then it is unchanged', () => {
    expect(likeLiteral('ayşe yılmaz 0532')).toBe('ayşe yılmaz 0532');
  });
});
