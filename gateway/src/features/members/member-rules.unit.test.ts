import { describe, expect, it } from 'vitest';
import {
  formatMemberNo,
  generateQrCode,
  generateReferralCode,
  isRealDate,
  isValidTcNo,
  normalizePhone,
} from './member-rules.js';

describe('normalizePhone', () => {
  it.each([
    ['+90 532 123 45 67', '05321234567'],
    ['+905321234567', '05321234567'],
    ['5321234567', '05321234567'],
    ['05321234567', '05321234567'],
    [' 05321234567 ', '05321234567'],
  ])('when given %j, then it stores %j', (input, stored) => {
    expect(normalizePhone(input)).toBe(stored);
  });

  it.each([
    '',
    '0532123456',
    '053212345678',
    '04321234567',
    '4321234567',
    '+90 432 123 45 67',
    '+1 532 123 45 67',
    '0532-123-45-67',
    '0532 123 45 67',
    'abc',
  ])('when given %j, then it is refused', (input) => {
    expect(normalizePhone(input)).toBeNull();
  });
});

describe('isValidTcNo', () => {
  it.each(['10000000146', '12345678950', '11111111110'])(
    'when %s has correct check digits, then it is valid',
    (value) => {
      expect(isValidTcNo(value)).toBe(true);
    },
  );

  it.each([
    ['a wrong tenth digit', '12345678960'],
    ['a wrong eleventh digit', '12345678951'],
    ['a leading zero', '01234567890'],
    ['ten digits', '1234567895'],
    ['letters', '1234567895a'],
  ])('when it has %s, then it is invalid', (_why, value) => {
    expect(isValidTcNo(value)).toBe(false);
  });
});

describe('numbering and codes', () => {
  it('when branch 7 gets number 42, then member_no is 007000042', () => {
    expect(formatMemberNo(7, 42)).toBe('007000042');
    expect(formatMemberNo(123, 999999)).toBe('123999999');
  });

  it('when codes are generated, then they follow the dashboard alphabets', () => {
    for (let i = 0; i < 200; i++) {
      expect(generateQrCode()).toMatch(/^QR[A-Z0-9]{20}$/);
      expect(generateReferralCode()).toMatch(/^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/);
    }
  });
});

describe('isRealDate', () => {
  it('when the day exists, then it is real; when it does not, then it is not', () => {
    expect(isRealDate('2024-02-29')).toBe(true);
    expect(isRealDate('2023-02-29')).toBe(false);
    expect(isRealDate('2026-13-01')).toBe(false);
    expect(isRealDate('2026-1-01')).toBe(false);
  });
});
