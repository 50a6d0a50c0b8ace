// `npm run sync:preflight`: whether the legacy server and the worker's user (LEGACY_DATABASE_URL)
// allow following the binary log, and for each thing missing the setting or GRANT to add.
// Exit code 0 ready, 1 something missing, 2 the check itself failed.
import * as mariadb from 'mariadb';
import { loadConfigOrExit } from '#common/config.js';
import { legacyConnectionOf } from '#common/legacy-database.js';
import { binlogPreflight, readBinlogServerFacts } from './preflight.js';

const config = loadConfigOrExit();
const connection = legacyConnectionOf(config.legacy.url);
const database = connection.database;
if (!database) {
  console.error('sync:preflight: LEGACY_DATABASE_URL names no database');
  process.exit(2);
}

try {
  const conn = await mariadb.createConnection({
    ...connection,
    // Without the database: a user who may not read it cannot open a session in it, and the
    // report is what should say so.
    database: undefined,
    connectTimeout: 5000,
    allowPublicKeyRetrieval: true,
  });
  try {
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
  } finally {
    await conn.end();
  }
} catch (error) {
  console.error(`sync:preflight failed: ${(error as Error).message}`);
  process.exitCode = 2;
}
