// Brings the read model up to date with the legacy database once, without queues: for tests
// that are about reading, not about the worker.
import { createReadModelClient } from '#common/databases.js';
import { createLegacyClient } from '#common/legacy-database.js';
import type { ReadModelClient } from '#common/databases.js';
import { reconcileTable } from '../../worker/src/sync/reconcile.js';
import { syncTable } from '../../worker/src/sync/sync-engine.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import type { TestEnvironment } from './environment.js';

export async function syncOnce(env: TestEnvironment): Promise<void> {
  const legacy = createLegacyClient(env.legacyReadOnlyUrl, { poolSize: 2 });
  const readModel = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  try {
    for (const table of SYNC_TABLES) {
      let run;
      do run = await syncTable(table, { legacy, readModel });
      while (!run.caughtUp);
    }
  } finally {
    await Promise.all([legacy.$disconnect(), readModel.$disconnect()]);
  }
}

/** One whole reconciliation pass over every table, without queues. */
export async function reconcileOnce(env: TestEnvironment, readModel: ReadModelClient) {
  const legacy = createLegacyClient(env.legacyReadOnlyUrl, { poolSize: 2 });
  try {
    for (const table of SYNC_TABLES) {
      let slice;
      do slice = await reconcileTable(table, { legacy, readModel });
      while (!slice.passFinished);
    }
  } finally {
    await legacy.$disconnect();
  }
}
