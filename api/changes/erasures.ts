// An erased member's deletion as its recipients see it (docs/decisions/0023-data-classes.md,
// "Erasure"): in the change feed and in webhooks, a client the recipients record names gets
// op `erase` with `{id, member_no, erased_at}` where any other gets the plain delete. Both read
// the erasure's receipt, written before the legacy row changes, so no recipient is ever told a
// plain delete first.
import type pg from 'pg';
import type { Change } from './change-page.js';

export interface ToldErasure {
  member_no: string;
  erased_at: Date;
}

const TOLD = `
  SELECT x.member_id, x.member_no, x.erased_at FROM member_erasures x
    JOIN member_recipients r ON r.member_id = x.member_id AND r.client_id = $2
   WHERE x.member_id = ANY($1::int[])`;

/** The change as `erasure`'s recipient receives it. */
export const asErasure = (change: Change, erasure: ToldErasure): Change => ({
  ...change,
  op: 'erase',
  data: { id: change.id, member_no: erasure.member_no, erased_at: erasure.erased_at.toISOString() },
});

/** A feed page's changes with the members' deletions `clientId` is to be told as erasures. */
export async function withErasures(
  pool: Pick<pg.Pool, 'query'>,
  clientId: number,
  changes: Change[],
): Promise<Change[]> {
  const deleted = changes.filter((c) => c.type === 'members' && c.op === 'delete').map((c) => c.id);
  if (deleted.length === 0) return changes;
  const { rows } = await pool.query<ToldErasure & { member_id: number }>(TOLD, [deleted, clientId]);
  if (rows.length === 0) return changes;
  const told = new Map(rows.map((row) => [row.member_id, row]));
  return changes.map((change) => {
    const erasure = change.type === 'members' && change.op === 'delete' && told.get(change.id);
    return erasure ? asErasure(change, erasure) : change;
  });
}
