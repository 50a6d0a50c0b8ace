// `npm run sync:verify`: compares the whole read model with the legacy database, table by
// table, prints the differences and a total; exit code 1 when anything differs. Its databases
// are the worker CLIs' composition root's (worker/src/cli-services.ts).
import { loadConfigOrExit } from '#common/config.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import { createSyncCliServices } from '../cli-services.js';
import { differenceCount, verifyReadModel } from './verify.js';

const SHOWN = 10;
const services = createSyncCliServices(loadConfigOrExit());
const { legacy, readModel } = services;
const sample = (ids: number[]) =>
  ids.length > 0 ? ` (${ids.slice(0, SHOWN).join(', ')}${ids.length > SHOWN ? ', ...' : ''})` : '';

try {
  const reports = await verifyReadModel(SYNC_TABLES, { legacy, readModel });
  for (const r of reports) {
    console.log(
      `${r.table}: ${r.missing.length} missing${sample(r.missing)}, ${r.extra.length} extra${sample(r.extra)}, ` +
        `${r.different.length} different${sample(r.different.map((d) => d.id))}`,
    );
    for (const d of r.different.slice(0, SHOWN))
      console.log(`  ${r.table} #${d.id}: ${d.columns.join(', ')}`);
    for (const k of r.kept)
      console.log(`  ${r.table} kept ${k.group}: ${k.kept} kept, ${k.actual} actual`);
    if (r.rejected.length > 0) console.log(`${r.table}: ${r.rejected.length} rejected`);
    for (const j of r.rejected.slice(0, SHOWN))
      console.log(`  ${r.table} #${j.id} rejected: ${j.reason}`);
  }
  // Kept for the console's sync health page: when each table was last compared, and how it went.
  // A read model it may not write to still gets its comparison: the page then shows the last one.
  const verifiedAt = new Date();
  try {
    for (const r of reports)
      await readModel.syncState.updateMany({
        where: { table_name: r.table },
        data: { verified_at: verifiedAt, verify_differences: differenceCount([r]) },
      });
  } catch (error) {
    console.error(`sync:verify could not store its results: ${(error as Error).message}`);
  }
  const total = differenceCount(reports);
  console.log(`total: ${total} difference${total === 1 ? '' : 's'}`);
  process.exitCode = total > 0 ? 1 : 0;
} catch (error) {
  console.error(`sync:verify failed: ${(error as Error).message}`);
  process.exitCode = 2;
} finally {
  await services.close();
}
