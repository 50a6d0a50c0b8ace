// The change feed's cursor (GET /changes, gateway/src/features/changes; each webhook event's
// `cursor`, worker/src/webhooks/dispatch.ts): a position in the feed (change-statement.ts) as the
// opaque text partners hand back, signed by the API so that one edited or made up is refused
// before anything in it is used (docs/decisions/0011-change-feed.md, "The cursor").
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { derivedKeys } from '#common/secrets-key.js';
import type { ChangeKey } from './change-statement.js';
import { TYPE_NAMES } from './change-types.js';

/** The HKDF label of the cursors' key: SECRETS_KEY serves other uses under other labels. */
const CURSOR_KEY_LABEL = 'dashboard-partner-api change-feed cursor v1';
/** HMAC-SHA256 cut to 128 bits: forging one is still 2^128 guesses, and cursors stay short. */
const MAC_BYTES = 16;
const MAC_TEXT = /^[A-Za-z0-9_-]{22}$/;
const PAYLOAD_TEXT = /^[A-Za-z0-9_-]{1,400}$/;

const INT8_MAX = 9_223_372_036_854_775_807n;
/**
 * A transaction id as text; even a signed one must fit PostgreSQL's bigint. One check: zod runs
 * a refinement after a failed regex too, and BigInt throws on what the regex refused.
 */
const xidText = z.string().refine((text) => /^[0-9]{1,19}$/.test(text) && BigInt(text) <= INT8_MAX);

// What a cursor says: the last key read (x, k, t, i), the floor of a read that began from no
// cursor (f, see floorOf) and when it was given (at). A signature only says the API wrote it, so
// the fields are checked all the same: nothing in a cursor ever reaches a statement unchecked.
const cursorSchema = z
  .strictObject({
    x: xidText,
    k: z.union([z.literal(0), z.literal(1), z.literal(2)]),
    t: z.enum(['', ...TYPE_NAMES]),
    i: z.int().min(0).max(2_147_483_647),
    f: xidText.optional(),
    at: z.int().positive(),
  })
  // Kind 2 ("all of transaction x") is the only key without a type.
  .refine((cursor) => (cursor.k === 2) === (cursor.t === ''));
export type Cursor = z.infer<typeof cursorSchema>;

/** Kind 2 sorts after every real kind: "every change of transaction x has been read". */
const ALL_OF_XID = 2;

/** Every change of a transaction below xmin is final: the present is "all of xmin - 1". */
export const presentOf = (xmin: bigint): ChangeKey => ({
  xid: xmin - 1n,
  kind: ALL_OF_XID,
  type: '',
  id: 0,
});

/** The key a cursor resumes after. */
export const keyOf = (cursor: Cursor): ChangeKey => ({
  xid: BigInt(cursor.x),
  kind: cursor.k,
  type: cursor.t,
  id: cursor.i,
});

/**
 * The snapshot xmin at which the cursor's read began from no cursor, 0 when it did not. Changes
 * of older transactions had all ended when it began, so a delete among them removed a row before
 * the partner could read it: purging it takes nothing from that partner.
 */
export const floorOf = (cursor: Cursor): bigint => BigInt(cursor.f ?? '0');

/**
 * Whether deletes the partner may still need were purged: the worker has removed deletes up to
 * transaction `horizon` (0: none), and the cursor has not read past it. Conservative at the
 * horizon itself: the purged transaction may hold deletes after the cursor's key.
 */
export function isPurgedPast(cursor: Cursor, horizon: bigint): boolean {
  const xid = BigInt(cursor.x);
  const floor = floorOf(cursor);
  return horizon > 0n && (xid > floor ? xid : floor) <= horizon;
}

export interface CursorCodec {
  /** The cursor of `key`, given now; `floor` as floorOf, carried only while it matters. */
  encode(key: ChangeKey, options?: { floor?: bigint }): string;
  /** The cursor `text` holds; null when it is not one of ours (edited, made up, malformed). */
  decode(text: string): Cursor | null;
}

/**
 * Cursors signed with SECRETS_KEY's keys (base64): the first signs, every one verifies, so a key
 * can be rotated without refusing the cursors partners hold.
 */
export function createCursorCodec(secretsKeys: readonly string[]): CursorCodec {
  const keys = derivedKeys(secretsKeys, CURSOR_KEY_LABEL);
  const signing = keys[0];
  if (!signing) throw new Error('change-feed cursors need SECRETS_KEY');
  const macOf = (key: Buffer, payload: string) =>
    createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES).toString('base64url');

  return {
    encode(key, options = {}) {
      const cursor: Cursor = {
        x: key.xid.toString(),
        k: key.kind as Cursor['k'],
        t: key.type,
        i: key.id,
        ...(options.floor !== undefined && options.floor > key.xid
          ? { f: options.floor.toString() }
          : {}),
        at: Date.now(),
      };
      const payload = Buffer.from(JSON.stringify(cursor)).toString('base64url');
      return `${payload}.${macOf(signing, payload)}`;
    },

    decode(text) {
      const dot = text.indexOf('.');
      const payload = text.slice(0, dot);
      const mac = text.slice(dot + 1);
      if (dot < 0 || !PAYLOAD_TEXT.test(payload) || !MAC_TEXT.test(mac)) return null;
      // The signature first, compared in constant time: nothing unsigned is even parsed.
      const given = Buffer.from(mac);
      if (!keys.some((key) => timingSafeEqual(Buffer.from(macOf(key, payload)), given))) {
        return null;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        return null;
      }
      const cursor = cursorSchema.safeParse(parsed);
      return cursor.success ? cursor.data : null;
    },
  };
}
