// The gateway's side of the recipients record (api/recipients.ts): every answer's members are
// written to PostgreSQL before the answer leaves, so no crash loses a recipient. Cheap on the
// hot path: a member and client recorded in the last minute with the same classes is not written
// again (its last time then lags by up to a minute), and the answers that have something new
// share one statement: while one is being written, the next ones gather behind it.
import type pg from 'pg';
import type { Received } from '#api/data-classes.js';
import { recordRecipients, rowsOf, type RecipientRow } from '#api/recipients.js';

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
