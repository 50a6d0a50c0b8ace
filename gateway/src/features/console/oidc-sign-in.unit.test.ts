import { describe, expect, it } from 'vitest';
import { isAllowedOperator } from './oidc-sign-in.js';

describe('isAllowedOperator', () => {
  const allowed = ['ops@club.example', '@branch.example'];

  it('when the address is listed, or its domain is, then it is let in whatever its case', () => {
    expect(isAllowedOperator('ops@club.example', allowed)).toBe(true);
    expect(isAllowedOperator('OPS@Club.Example', allowed)).toBe(true);
    expect(isAllowedOperator('anyone@branch.example', allowed)).toBe(true);
  });

  it('when only a look-alike is listed, then it is refused', () => {
    expect(isAllowedOperator('other@club.example', allowed)).toBe(false);
    expect(isAllowedOperator('anyone@sub.branch.example', allowed)).toBe(false);
    expect(isAllowedOperator('anyone@branch.example.evil', allowed)).toBe(false);
    expect(isAllowedOperator('ops@club.example@evil.example', allowed)).toBe(false);
  });
});
