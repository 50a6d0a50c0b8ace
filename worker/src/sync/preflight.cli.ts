// `npm run sync:preflight`: whether the legacy server and the worker's user (LEGACY_DATABASE_URL)
// allow following the binary log, and for each thing missing the setting or GRANT to add.
// Exit code 0 ready, 1 something missing, 2 the check itself failed. Its connection is the
// worker CLIs' composition root's (worker/src/cli-services.ts).
import { loadConfigOrExit } from '#common/config.js';
import { legacyConnectionOf } from '#common/legacy-database.js';
import { createSyncCliServices } from '../cli-services.js';
import { binlogPreflight, readBinlogServerFacts } from './preflight.js';

const config = loadConfigOrExit();
const database = legacyConnectionOf(config.legacy.url).database;
if (!database) {
  console.error('sync:preflight: LEGACY_DATABASE_URL names no database');
  process.exit(2);
}

const services = createSyncCliServices(config);
try {
  const conn = await services.legacyServer();
  const findings = binlogPreflight(await readBinlogServerFacts(conn, database));
  for (const f of findings) {
    console.log(
      f.fix
        ? `missing ${f.what} (${f.seen}): ${f.fix}`
        : f.advice
          ? `advised ${f.what} (${f.seen}): ${f.advice}`
          : `ok      ${f.what}: ${f.seen}`,
    );
  }
  const missing = findings.filter((f) => f.fix).length;
  console.log(
    missing === 0
      ? 'ready: the worker can follow the binary log (SYNC_SOURCE=binlog)'
      : `not ready: ${missing} missing`,
  );
  process.exitCode = missing === 0 ? 0 : 1;
} catch (error) {
  console.error(`sync:preflight failed: ${(error as Error).message}`);
  process.exitCode = 2;
} finally {
  await services.close();
}
