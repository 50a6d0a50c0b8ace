// A new webhook subscription starts at the feed's present: the oldest transaction still running
// on the server (webhooks.service.ts). A change committed just before it, while another file's
// longer transaction was running, is then still after that present and reaches the subscription:
// at least once, never missed. A test that counts exactly its own events waits first until every
// transaction older than now has ended, so that its subscription starts after all it wrote.
import type { ReadModelClient } from '#common/databases.js';
import { eventually } from './eventually.js';

export async function feedSettled(db: ReadModelClient): Promise<void> {
  const [now] = await db.$queryRaw<{ xid: string }[]>`
    SELECT pg_current_xact_id()::text AS xid`;
  await eventually(async () => {
    const [horizon] = await db.$queryRaw<{ xmin: string }[]>`
      SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`;
    if (BigInt(horizon!.xmin) <= BigInt(now!.xid))
      throw new Error('a transaction older than now still runs');
  }, 30_000);
}
