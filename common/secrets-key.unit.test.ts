import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSealer, keyedDigests, SealedTextError } from './secrets-key.js';

const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const LABEL = 'a use';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('text sealed under SECRETS_KEY', () => {
  it('when text is sealed, then it opens to the same text and shows none of it, each time differently', () => {
    const sealer = createSealer([key(1)], LABEL);
    const sealed = sealer.seal(SECRET);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(SECRET.slice(6, 16));
    expect(sealer.seal(SECRET)).not.toBe(sealed);
    expect(sealer.open(sealed)).toBe(SECRET);
    expect(sealer.isCurrent(sealed)).toBe(true);
  });

  it('when keys rotate, then the first seals and every one opens, and only the first is current', () => {
    const before = createSealer([key(1)], LABEL).seal(SECRET);
    const rotated = createSealer([key(2), key(1)], LABEL);
    expect(rotated.open(before)).toBe(SECRET);
    expect(rotated.isCurrent(before)).toBe(false);
    const after = rotated.seal(SECRET);
    expect(rotated.isCurrent(after)).toBe(true);
    expect(createSealer([key(2)], LABEL).open(after)).toBe(SECRET);
  });

  it('when no key opens a value, then it fails saying so, never returning text', () => {
    const sealed = createSealer([key(1)], LABEL).seal(SECRET);
    const cases = [
      () => createSealer([key(3)], LABEL).open(sealed),
      // The same keys for another use: HKDF gives each use its own.
      () => createSealer([key(1)], 'another use').open(sealed),
      () => createSealer([key(1)], LABEL).open(SECRET),
    ];
    for (const open of cases) expect(open).toThrow(SealedTextError);
    expect(cases[0]).toThrow(/none of SECRETS_KEY's keys/);
    expect(() => createSealer([], LABEL).seal(SECRET)).toThrow(/SECRETS_KEY is not set/);
  });

  it('when any character of a sealed value changes, then it does not open', () => {
    const sealer = createSealer([key(1)], LABEL);
    const sealed = sealer.seal(SECRET);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    fc.assert(
      fc.property(fc.nat(sealed.length - 1), fc.constantFrom(...alphabet), (at, character) => {
        fc.pre(sealed[at] !== character);
        const edited = sealed.slice(0, at) + character + sealed.slice(at + 1);
        let opened: string | null = null;
        try {
          opened = sealer.open(edited);
        } catch (error) {
          expect(error).toBeInstanceOf(SealedTextError);
        }
        // A last base64url character may carry unused bits: the same bytes, the same text.
        if (opened !== null) expect(opened).toBe(SECRET);
      }),
    );
  });
});

describe('keyed digests of stored bearer values', () => {
  it('when keys rotate, then the first key names the value and every key finds it; another use or key gives another digest', () => {
    const [current, previous] = keyedDigests([key(2), key(1)], LABEL, SECRET);
    expect(keyedDigests([key(1)], LABEL, SECRET)).toEqual([previous]);
    expect(keyedDigests([key(2)], LABEL, SECRET)).toEqual([current]);
    expect(current).not.toBe(previous);
    expect(keyedDigests([key(1)], 'another use', SECRET)).not.toEqual([previous]);
    expect(() => keyedDigests([], LABEL, SECRET)).toThrow(/SECRETS_KEY/);
  });
});
