import fc from 'fast-check';
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

  it('when texts mix the common alphabet with other characters, then each folds as the locale-aware way does', () => {
    const reference = (text: string) =>
      text
        .toLocaleLowerCase('tr-TR')
        .normalize('NFD')
        .replace(/[\u0300-\u036f]/g, '')
        .replace(/ı/g, 'i')
        .replace(/\s+/g, ' ')
        .trim();
    const common = fc.constantFrom(
      ...'abcxyzIiİıŞşÇçĞğÜüÖöÂâÎîÛû AZ09@.-_\t\n\r\u00a0',
      '\u0307',
      '\u0327',
      'é',
      'ß',
      '😀',
      '\u2003',
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: common, maxLength: 40 }), fc.string({ unit: 'binary' })),
        (text) => {
          expect(foldTurkish(text)).toBe(reference(text));
        },
      ),
      { numRuns: 20_000 },
    );
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
