import { createHmac, hkdfSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCursorCodec, isPurgedPast, type Cursor } from './cursor.js';

const KEY = Buffer.alloc(32, 7).toString('base64');
const OLD_KEY = Buffer.alloc(32, 9).toString('base64');
const codec = createCursorCodec([KEY]);

/** Signed as the codec signs, whatever the payload: what a leaked key or a bug could make. */
function signed(payload: unknown, secretsKey = KEY): string {
  const text = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const key = Buffer.from(
    hkdfSync(
      'sha256',
      Buffer.from(secretsKey, 'base64'),
      Buffer.alloc(0),
      'dashboard-partner-api change-feed cursor v1',
      32,
    ),
  );
  const mac = createHmac('sha256', key).update(text).digest().subarray(0, 16);
  return `${text}.${mac.toString('base64url')}`;
}

const key = { xid: 1234n, kind: 1, type: 'members', id: 42 };
const valid = { x: '1234', k: 1, t: 'members', i: 42, at: Date.now() };

describe('change-feed cursors', () => {
  it('when the API encodes a key, then it decodes to that key; with a floor above it, the floor too', () => {
    expect(codec.decode(codec.encode(key))).toMatchObject({ x: '1234', k: 1, t: 'members', i: 42 });
    expect(codec.decode(codec.encode(key, { floor: 2000n }))).toMatchObject({ f: '2000' });
    expect(codec.decode(codec.encode(key, { floor: 1000n }))).not.toHaveProperty('f');
  });

  it('when keys rotate, then the first signs and every one verifies', () => {
    const before = createCursorCodec([OLD_KEY]).encode(key);
    const rotated = createCursorCodec([KEY, OLD_KEY]);
    expect(rotated.decode(before)).not.toBeNull();
    expect(codec.decode(rotated.encode(key))).not.toBeNull();
    expect(codec.decode(before)).toBeNull();
  });

  it('when any character of a cursor changes, then it is not ours', () => {
    const cursor = codec.encode(key);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    fc.assert(
      fc.property(fc.nat(cursor.length - 1), fc.constantFrom(...alphabet), (at, character) => {
        fc.pre(cursor[at] !== character);
        const edited = cursor.slice(0, at) + character + cursor.slice(at + 1);
        expect(codec.decode(edited)).toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it('when a payload is edited and not signed again, then it is not ours', () => {
    const [, mac] = codec.encode(key).split('.');
    for (const edit of [{ x: '1233' }, { x: '99999999999999999999' }, { at: Date.now() * 2 }]) {
      const text = Buffer.from(JSON.stringify({ ...valid, ...edit })).toString('base64url');
      expect(codec.decode(`${text}.${mac}`)).toBeNull();
    }
    // The format before signing: a bare payload.
    expect(codec.decode(Buffer.from(JSON.stringify(valid)).toString('base64url'))).toBeNull();
  });

  it('when a signed payload holds a field no cursor of ours has, then it is not ours', () => {
    expect(codec.decode(signed(valid))).not.toBeNull();
    const edits: Record<string, unknown>[] = [
      { x: '99999999999999999999' },
      { x: '9223372036854775808' },
      { x: '-1' },
      { x: '1e3' },
      { x: 1234 },
      { x: '' },
      { k: 3 },
      { k: -1 },
      { k: '1' },
      { k: 2 },
      { t: 'uyeler' },
      { t: '' },
      { t: 'x'.repeat(10_000) },
      { t: null },
      { i: -1 },
      { i: 2 ** 31 },
      { i: 1.5 },
      { i: 1e300 },
      { i: '42' },
      { at: 0 },
      { at: -1 },
      { at: 'now' },
      { at: 1e300 },
      { f: '-5' },
      { f: '99999999999999999999' },
      { f: 5 },
      { extra: 1 },
    ];
    for (const edit of edits)
      expect([edit, codec.decode(signed({ ...valid, ...edit }))]).toEqual([edit, null]);
    for (const payload of [null, [], 'x', 42, {}, { ...valid, x: undefined }]) {
      expect(codec.decode(signed(payload))).toBeNull();
    }
  });

  it('when any text arrives, then decoding answers a cursor or null, never throws', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), (text) => {
        expect(codec.decode(text)).toBeNull();
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.jsonValue(), (payload) => {
        const cursor = codec.decode(signed(payload));
        expect(cursor === null || typeof cursor.x === 'string').toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('when deletes were purged up to a transaction, then a cursor that has not read past it is purged past, unless its read began after them', () => {
    const at = (x: string, f?: string): Cursor => ({
      x,
      k: 2,
      t: '',
      i: 0,
      at: 1,
      ...(f ? { f } : {}),
    });
    expect(isPurgedPast(at('99'), 100n)).toBe(true);
    expect(isPurgedPast(at('100'), 100n)).toBe(true);
    expect(isPurgedPast(at('101'), 100n)).toBe(false);
    expect(isPurgedPast(at('5'), 0n)).toBe(false);
    // A read from no cursor that began at xmin 150 never held what deletes up to 100 removed.
    expect(isPurgedPast(at('5', '150'), 100n)).toBe(false);
    expect(isPurgedPast(at('5', '100'), 100n)).toBe(true);
  });
});
