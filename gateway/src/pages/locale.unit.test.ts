// The language a browser prefers of the two, the switch's way back, and dates and numbers as
// Intl writes them in each (docs/decisions/0025-page-languages.md).
import { describe, expect, it } from 'vitest';
import { backWithin } from './language.js';
import { acceptedLocale, cookieLocale, formatOf } from './locale.js';

describe('the page language', () => {
  it('when Accept-Language prefers Turkish to English, then Turkish; otherwise English', () => {
    expect(acceptedLocale('tr-TR,tr;q=0.9,en-US;q=0.8')).toBe('tr');
    expect(acceptedLocale('en-US,en;q=0.9,tr;q=0.8')).toBe('en');
    expect(acceptedLocale('de-DE,tr;q=0.5')).toBe('tr');
    expect(acceptedLocale('de-DE,fr;q=0.8')).toBe('en');
    expect(acceptedLocale('en;q=0.5,tr;q=0.5')).toBe('en');
    expect(acceptedLocale('tr;q=0,en')).toBe('en');
    expect(acceptedLocale(undefined)).toBe('en');
  });

  it('when the Cookie header holds lang, then its language, only one of ours', () => {
    expect(cookieLocale('console=abc; lang=tr')).toBe('tr');
    expect(cookieLocale('lang=fr')).toBeUndefined();
    expect(cookieLocale(undefined)).toBeUndefined();
  });

  it('when the switch is told where to go back, then only a path of its area', () => {
    expect(backWithin('/console/usage?by=status', '/console')).toBe('/console/usage?by=status');
    expect(backWithin('/console', '/console')).toBe('/console');
    for (const elsewhere of [
      'https://evil.example/console',
      '//evil.example/console',
      '/\\evil.example',
      '/console/..//evil.example',
      '/consolex',
      '/portal/overview',
      undefined,
      ['/console/usage'],
    ])
      expect(backWithin(elsewhere, '/console')).toBe('/console');
  });

  it('when a moment and a number are written, then each language writes them its own way', () => {
    const at = new Date('2026-11-28T09:30:05Z');
    const [tr, en] = [formatOf('tr'), formatOf('en')];
    expect(tr.number(1234567.5)).toBe('1.234.567,5');
    expect(en.number(1234567.5)).toBe('1,234,567.5');
    expect(tr.utc(at)).toBe('28 Kas 2026 09:30:05');
    expect(en.utc(at)).toBe('28 Nov 2026, 09:30:05');
    expect(tr.utc(at, 'minute')).toBe('28 Kas 2026 09:30');
    // The club's local time, its zone named.
    expect(tr.moment(at)).toBe('28 Kas 2026 12:30 GMT+3');
    expect(en.moment(at)).toBe('28 Nov 2026, 12:30 GMT+3');
    expect(tr.duration(3 * 60)).toBe('3 dk.');
    expect(en.duration(45)).toBe('45 secs');
  });
});
