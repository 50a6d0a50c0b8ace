// The cost of one full reconciliation pass over every table of an already synced dashboard:
// seconds, legacy rows covered by the checksums, rows read one by one from differing buckets, and
// the legacy server's CPU and rows read meanwhile (shared server: other users' load counts too).
import type { SyncDatabases } from '../worker/src/sync/sync-databases.js';
import { reconcileTable } from '../worker/src/sync/reconcile.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import { legacyLoadSince, legacyLoadSnapshot } from './legacy-load.js';

export async function benchReconcilePass(db: SyncDatabases) {
  const before = await legacyLoadSnapshot(db.legacy);
  const started = Date.now();
  const totals = { checked: 0, read: 0, repaired: 0, buckets: 0, legacyMs: 0 };
  for (const table of SYNC_TABLES) {
    let slice;
    do {
      slice = await reconcileTable(table, db);
      totals.checked += slice.legacyRowsChecked;
      totals.read += slice.legacyRowsRead;
      totals.repaired += slice.written + slice.deleted;
      totals.buckets += slice.bucketsRepaired;
      totals.legacyMs += slice.legacyMs;
    } while (!slice.passFinished);
  }
  const seconds = (Date.now() - started) / 1000;
  const load = legacyLoadSince(before, await legacyLoadSnapshot(db.legacy));
  console.log(
    `reconcile pass: ${seconds.toFixed(1)} s over ${totals.checked} legacy rows ` +
      `(checksum queries ${(totals.legacyMs / 1000).toFixed(1)} s), ${totals.buckets} differing buckets, ` +
      `${totals.read} rows read one by one, ${totals.repaired} repaired; legacy server: ` +
      `${load.cpuSeconds === null ? 'CPU n/a' : `${load.cpuSeconds.toFixed(1)} CPU s`}, ` +
      `${load.rowsRead} rows read (server-wide)`,
  );
  return { seconds, ...totals, load };
}
