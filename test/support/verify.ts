import { createReadModelClient } from '#common/databases.js';
import { createLegacyClient } from '#common/legacy-database.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import {
  differenceCount,
  verifyReadModel,
  type TableReport,
} from '../../worker/src/sync/verify.js';
import type { TestEnvironment } from './environment.js';

/** What `npm run sync:verify` would report for this environment. */
export async function verifyEnvironment(
  env: TestEnvironment,
): Promise<{ total: number; reports: TableReport[] }> {
  const legacy = createLegacyClient(env.legacyReadOnlyUrl, { poolSize: 2 });
  const readModel = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  try {
    const reports = await verifyReadModel(SYNC_TABLES, { legacy, readModel });
    return {
      total: differenceCount(reports),
      reports: reports.filter((r) => differenceCount([r]) > 0),
    };
  } finally {
    await Promise.all([legacy.$disconnect(), readModel.$disconnect()]);
  }
}
