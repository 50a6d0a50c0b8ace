// The recipients record (docs/decisions/0023-data-classes.md, "Recipients"): which clients received
// which classes of a member's data, one row per member and client, first and last time. The
// gateway writes it before an answer leaves (gateway/src/http/endpoint.ts), the worker before a
// webhook is sent (worker/src/webhooks/delivery/tries.ts): a recipient is never lost to a crash. Both
// through one recorder, cheap on their hot paths: a member and client recorded in the last minute
// with the same classes is not written again (its last time then lags by up to a minute), and the
// answers or deliveries that have something new share one statement: while one is being written,
// the next ones gather behind it.
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

/** How long a recorded member and client is not written again, with the same classes. */
const FRESH_MS = 60_000;
/** Members and clients remembered as recorded; the oldest are forgotten first. */
const REMEMBERED = 200_000;

export interface RecipientsRecorder {
  /**
   * Records that `clientId` receives `received`: null when every one is already recorded,
   * else a promise settled once written (rejected when it could not be: the answer must not go).
   */
  record(clientId: number, received: Received): Promise<void> | null;
}

/** RECIPIENTS_RECORDING=off, for measuring the record's cost only (bench/gateway). */
export const NOT_RECORDING: RecipientsRecorder = { record: () => null };

export function createRecipientsRecorder(pool: Pick<pg.Pool, 'query'>): RecipientsRecorder {
  const recorded = new Map<string, { classes: number; at: number }>();
  let gathering: RecipientRow[] = [];
  let next: Promise<void> | null = null;
  let writing: Promise<void> | null = null;

  function remember(rows: readonly RecipientRow[], at: number) {
    for (const row of rows) {
      const key = `${row.clientId}:${row.memberId}`;
      const seen = recorded.get(key);
      recorded.delete(key);
      recorded.set(key, { classes: row.classes | (seen?.classes ?? 0), at });
    }
    while (recorded.size > REMEMBERED) recorded.delete(recorded.keys().next().value!);
  }

  /** The gathered rows, written once the statement before them is done. */
  function flush(): Promise<void> {
    if (next) return next;
    next = (async () => {
      await writing?.catch(() => undefined);
      const rows = gathering;
      gathering = [];
      next = null;
      const started = Date.now();
      writing = recordRecipients(pool, rows);
      await writing;
      remember(rows, started);
    })();
    return next;
  }

  return {
    record(clientId, received) {
      if (received.size === 0) return null;
      const now = Date.now();
      const fresh: RecipientRow[] = [];
      for (const row of rowsOf(clientId, received)) {
        const seen = recorded.get(`${clientId}:${row.memberId}`);
        const covered = seen && (seen.classes | row.classes) === seen.classes;
        if (!covered || now - seen.at > FRESH_MS) fresh.push(row);
      }
      if (fresh.length === 0) return null;
      gathering.push(...fresh);
      return flush();
    },
  };
}
