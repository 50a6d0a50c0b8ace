// X-Data-Age: whole seconds since the least recently synced table behind an answer was last brought
// up to date, plus the replay lag of the read replica that answered, if one did. The sync positions
// are read at most once a second per process, in the background of the request that finds them
// stale, so no request waits on that query except the very first one.
import type { SqlTable } from '#api/sql-table.js';
import type { ReadModelClient } from '#common/databases.js';

const REFRESH_MS = 1000;

export interface DataAges {
  /**
   * The header value for these tables, or null while one of them has never been synced;
   * `lagMs`: how far behind the primary the database that answered is (a read replica).
   */
  ageOf(tables: readonly SqlTable[], lagMs?: number): Promise<string | null>;
}

export function createDataAges(db: ReadModelClient): DataAges {
  let syncedAt = new Map<string, number>();
  let loadedAt = 0;
  let loading: Promise<void> | null = null;

  const load = async () => {
    try {
      const states = await db.syncState.findMany({ select: { table_name: true, synced_at: true } });
      const next = new Map<string, number>();
      for (const s of states) if (s.synced_at) next.set(s.table_name, s.synced_at.getTime());
      syncedAt = next;
      loadedAt = Date.now();
    } finally {
      loading = null;
    }
  };

  return {
    async ageOf(tables, lagMs = 0) {
      if (Date.now() - loadedAt >= REFRESH_MS && !loading) {
        loading = load();
        // Only the first load is awaited; later ones refresh in the background, and a failed
        // one leaves the last known positions (a read answer does not need a fresh header).
        if (loadedAt === 0) await loading;
        else loading.catch(() => undefined);
      }
      let oldest = Infinity;
      for (const table of tables) {
        const at = syncedAt.get(table);
        if (at === undefined) return null;
        oldest = Math.min(oldest, at);
      }
      if (tables.length === 0) return null;
      return String(Math.max(0, Math.floor((Date.now() - oldest + lagMs) / 1000)));
    },
  };
}
