// `npm run sync:preflight` driven as an operator would, against a MariaDB of the test's own: the
// binary log off, then on but statement-mixed with a short retention, then a worker user without
// the replication grants. Each fix it prints is applied verbatim, so a fix that is not exact fails.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as mariadb from 'mariadb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyConnectionOf } from '#common/legacy-database.js';
import { createLegacyDatabase } from '../../scripts/legacy/legacy-database.js';
import { provisionLegacyUser, SYNC_GRANTS, urlAs } from '../../scripts/legacy/legacy-users.js';
import { binlogPreflight, readBinlogServerFacts } from '../../worker/src/sync/preflight.js';
import { SpareMariaDb } from '../support/spare-mariadb.js';

const run = promisify(execFile);
const worker = { user: 'api_sync', password: 'preflight-secret' };
let server: SpareMariaDb;
let rootUrl: string;

beforeAll(async () => {
  server = await SpareMariaDb.start();
  rootUrl = server.url.replace(/\/mysql$/, '/dashboard');
  await createLegacyDatabase(rootUrl);
  await asRoot((admin) => provisionLegacyUser(admin, 'dashboard', worker, SYNC_GRANTS));
});

afterAll(async () => {
  await server?.destroy();
});

async function asRoot<T>(work: (admin: mariadb.Connection) => Promise<T>): Promise<T> {
  const admin = await mariadb.createConnection(legacyConnectionOf(server.url));
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

async function preflight(url: string): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run('npm', ['run', '--silent', 'sync:preflight'], {
      env: { ...process.env, LEGACY_DATABASE_URL: url },
    });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

/** The statements a report tells the operator to run at once, in order. */
const statementsIn = (stdout: string) =>
  [...stdout.matchAll(/(SET GLOBAL [^(\n]+?|GRANT [^;]+;)(?= \(|,|$)/gm)].map((m) => m[1]!);

describe('npm run sync:preflight', () => {
  it('when the server writes no binary log, then it names log_bin and the restart it needs and exits 1', async () => {
    const report = await preflight(rootUrl);
    expect(report.code).toBe(1);
    expect(report.stdout).toMatch(/^missing log_bin \(OFF\): log_bin = mysql-bin .*restart/m);
    expect(report.stdout).toMatch(/^not ready: \d+ missing$/m);
  });

  it('when the log is on but MIXED and kept an hour, then it names both settings, and applying them makes it ready', async () => {
    await server.stop();
    server.binaryLog = true;
    await server.start();
    await asRoot(async (admin) => {
      await admin.query("SET GLOBAL binlog_format = 'MIXED'");
      await admin.query('SET GLOBAL binlog_expire_logs_seconds = 3600');
    });

    const report = await preflight(rootUrl);
    expect(report.code).toBe(1);
    expect(report.stdout).toMatch(/^ok +log_bin: ON$/m);
    expect(report.stdout).toMatch(
      /^missing binlog_format \(MIXED\): binlog_format = ROW under \[mysqld\].*SET GLOBAL binlog_format = 'ROW'/m,
    );
    expect(report.stdout).toMatch(
      /^missing binary log retention \(3600 s\): .*SET GLOBAL binlog_expire_logs_seconds = 604800/m,
    );
    expect(report.stdout).toMatch(/^not ready: 2 missing$/m);

    const fixes = statementsIn(report.stdout);
    expect(fixes).toHaveLength(2);
    await asRoot(async (admin) => {
      for (const statement of fixes) await admin.query(statement);
    });
    const fixed = await preflight(rootUrl);
    expect(fixed.stdout).toMatch(/^ready: /m);
    expect(fixed.code).toBe(0);
  });

  it('when the worker user holds SELECT only, then it names the GRANT to add, and after that GRANT exits 0', async () => {
    const url = urlAs(rootUrl, worker);
    const report = await preflight(url);
    expect(report.code).toBe(1);
    expect(report.stdout).toContain(
      "missing REPLICATION SLAVE, REPLICATION CLIENT (not granted): GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'api_sync'@'%';",
    );
    expect(report.stdout).toMatch(/^ok +SELECT on dashboard: granted$/m);
    expect(report.stdout).toMatch(/^not ready: 1 missing$/m);

    await asRoot(async (admin) => {
      for (const statement of statementsIn(report.stdout)) await admin.query(statement);
    });
    const ready = await preflight(url);
    expect(ready.stdout).toMatch(/^ready: /m);
    expect(ready.code).toBe(0);
  });

  it('when the user may not read the database, then it names the GRANT SELECT to add', async () => {
    const stranger = { user: 'api_stranger', password: 'preflight-secret' };
    await asRoot((admin) =>
      provisionLegacyUser(admin, 'dashboard', stranger, [
        'GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO {user}',
      ]),
    );
    const report = await preflight(urlAs(rootUrl, stranger));
    expect(report.code).toBe(1);
    expect(report.stdout).toContain(
      "missing SELECT on dashboard (not granted): GRANT SELECT ON `dashboard`.* TO 'api_stranger'@'%';",
    );
  });
});

describe('MySQL 8.4 readiness', () => {
  it('when binlog_row_metadata is not FULL, then it advises FULL without counting it missing, and reports gtid_mode', async () => {
    await asRoot((admin) => admin.query("SET GLOBAL binlog_row_metadata = 'MINIMAL'"));
    const report = await preflight(rootUrl);
    expect(report.stdout).toMatch(
      /^advised binlog_row_metadata \(MINIMAL\): FULL advised, not required/m,
    );
    expect(report.stdout).toMatch(/^ok +gtid_mode: \(absent: MariaDB's GTIDs are always on\)$/m);
    expect(report.stdout).toMatch(/^ready: /m);
    expect(report.code).toBe(0);

    await asRoot((admin) => admin.query("SET GLOBAL binlog_row_metadata = 'FULL'"));
    const full = await preflight(rootUrl);
    expect(full.stdout).toMatch(/^ok +binlog_row_metadata: FULL$/m);
  });

  // MariaDB has no binlog_row_value_options: the server's own facts, with MySQL's variable set.
  it('when binlog_row_value_options is PARTIAL_JSON, then it refuses it and names the setting that clears it', async () => {
    const facts = await asRoot((admin) => readBinlogServerFacts(admin, 'dashboard'));
    const withOption = (value: string) =>
      binlogPreflight({
        ...facts,
        variables: new Map([...facts.variables, ['binlog_row_value_options', value]]),
      }).find((f) => f.what === 'binlog_row_value_options');

    const partial = withOption('PARTIAL_JSON');
    expect(partial?.fix).toContain("SET GLOBAL binlog_row_value_options = ''");
    expect(partial?.fix).toMatch(/JSON column is logged as a diff the worker cannot read/);
    expect(withOption('')).toEqual({ what: 'binlog_row_value_options', seen: '(empty)' });
    expect(facts.variables.has('binlog_row_value_options')).toBe(false);
  });
});
