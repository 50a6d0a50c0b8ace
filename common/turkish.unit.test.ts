import { describe, expect, it } from 'vitest';
import { foldTurkish, phoneSearchDigits } from './turkish.js';

describe('foldTurkish', () => {
  it.each([
    ['İsmail', 'ismail'],
    ['IŞIK', 'isik'],
    ['ışık', 'isik'],
    ['Şükrü', 'sukru'],
    ['ÇAĞLA Öztürk', 'cagla ozturk'],
    ['  Ali   Veli ', 'ali veli'],
  ])('when folding %s, then it gives %s', (input, expected) => {
    expect(foldTurkish(input)).toBe(expected);
  });

  it('when a query and a name differ only by Turkish case and diacritics, then they fold alike', () => {
    expect(foldTurkish('IŞIK')).toBe(foldTurkish('ışık'));
    expect(foldTurkish('sukru')).toBe(foldTurkish('Şükrü'));
    expect(foldTurkish('ismail')).toBe(foldTurkish('İSMAİL'));
  });
});

describe('phoneSearchDigits', () => {
  it.each([
    ['+90 532 123 45 67', '05321234567'],
    ['0532 123 45 67', '05321234567'],
    ['(532) 123-4567', '5321234567'],
    ['4567', '4567'],
  ])('when searching %s, then it looks for %s', (input, expected) => {
    expect(phoneSearchDigits(input)).toBe(expected);
  });

  it('when the query has letters, then it is no phone search', () => {
    expect(phoneSearchDigits('ali 532')).toBeNull();
  });
});
