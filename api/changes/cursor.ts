// The change feed's cursor (GET /changes, gateway/src/features/changes): a position in the feed
// (change-statement.ts) as the opaque text partners hand back.
import { z } from 'zod';
import type { ChangeKey } from './change-statement.js';

// The cursor: the last key read and when the cursor was given, as base64url JSON. Opaque to
// partners; anything that does not decode to exactly this is not one of ours.
const cursorSchema = z.strictObject({
  x: z.string().regex(/^[0-9]{1,20}$/),
  k: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  t: z.string().max(40),
  i: z.int().min(0).max(2_147_483_647),
  at: z.int().positive(),
});
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

export function encodeCursor(key: ChangeKey): string {
  const cursor: Cursor = {
    x: key.xid.toString(),
    k: key.kind as Cursor['k'],
    t: key.type,
    i: key.id,
    at: Date.now(),
  };
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

/** The cursor `text` encodes; null when it is not one of ours. */
export function decodeCursor(text: string): Cursor | null {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(text)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const cursor = cursorSchema.safeParse(parsed);
  return cursor.success ? cursor.data : null;
}
