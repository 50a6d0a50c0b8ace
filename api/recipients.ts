// The recipients record (docs/decisions/0023-data-classes.md, "Recipients"): which clients received
// which classes of a member's data, one row per member and client, first and last time. The
// gateway writes it before an answer leaves (gateway/src/http/recipients.ts), the worker before a
// webhook is sent (worker/src/webhooks/delivery.ts): a recipient is never lost to a crash.
import type pg from 'pg';
import type { ClassMask, Received } from './data-classes.js';

export interface RecipientRow {
  memberId: number;
  clientId: number;
  classes: ClassMask;
}

// Rows in key order, each key once (ON CONFLICT may touch a row once per statement; one order
// keeps two writers from locking each other's rows the other way round).
const UPSERT = `
  INSERT INTO member_recipients AS r (member_id, client_id, classes)
  SELECT * FROM unnest($1::int[], $2::int[], $3::int[])
  ON CONFLICT (member_id, client_id) DO UPDATE
     SET classes = r.classes | EXCLUDED.classes, last_at = now()`;

/** The rows of one client's answer. */
export const rowsOf = (clientId: number, received: Received): RecipientRow[] =>
  [...received].map(([memberId, classes]) => ({ memberId, clientId, classes }));

/** Records `rows` in one statement: each member and client once, classes merged. */
export async function recordRecipients(
  db: Pick<pg.Pool, 'query'>,
  rows: readonly RecipientRow[],
): Promise<void> {
  if (rows.length === 0) return;
  const merged = new Map<string, RecipientRow>();
  for (const row of rows) {
    const key = `${row.memberId}:${row.clientId}`;
    const seen = merged.get(key);
    merged.set(key, seen ? { ...seen, classes: seen.classes | row.classes } : row);
  }
  const sorted = [...merged.values()].sort(
    (a, b) => a.memberId - b.memberId || a.clientId - b.clientId,
  );
  await db.query(UPSERT, [
    sorted.map((r) => r.memberId),
    sorted.map((r) => r.clientId),
    sorted.map((r) => r.classes),
  ]);
}
