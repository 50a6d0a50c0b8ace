import { describe, expect, it } from 'vitest';
import { escapeLike } from './filters.js';

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
