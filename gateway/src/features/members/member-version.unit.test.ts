import { describe, expect, it } from 'vitest';
import { idempotencyKeyOf } from './idempotency.js';
import { ifMatchAccepts } from './member-version.js';

describe('If-Match', () => {
  it('when it lists the current strong tag or *, then it matches; a weak or other tag does not', () => {
    expect(ifMatchAccepts('"abc"', '"abc"')).toBe(true);
    expect(ifMatchAccepts('"x", "abc"', '"abc"')).toBe(true);
    expect(ifMatchAccepts('*', '"abc"')).toBe(true);
    expect(ifMatchAccepts('W/"abc"', '"abc"')).toBe(false);
    expect(ifMatchAccepts('"abd"', '"abc"')).toBe(false);
  });
});

describe('Idempotency-Key', () => {
  it('when given bare or as a structured-field string, then the key is the same', () => {
    expect(idempotencyKeyOf('abc')).toBe('abc');
    expect(idempotencyKeyOf('"abc"')).toBe('abc');
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
  });

  it('when empty or longer than 255 characters, then it is 400 naming the header', () => {
    for (const bad of ['', '""', 'x'.repeat(256)]) {
      expect(() => idempotencyKeyOf(bad)).toThrow(
        expect.objectContaining({
          status: 400,
          details: [expect.objectContaining({ field: 'Idempotency-Key' })],
        }),
      );
    }
    expect(idempotencyKeyOf('x'.repeat(255))).toHaveLength(255);
  });
});
