// What following the dashboard's binary log asks of its server and of the worker's MySQL user
// (decision 0016), read from the server as that user, and for each thing missing the exact
// setting or GRANT that adds it. Nothing here changes the server.
import type { Connection } from 'mariadb';

/**
 * Binary logs kept for less than this are purged under a worker stopped over a day; it would
 * then fall back to polling and a reconciliation pass instead of resuming from its position.
 */
export const MIN_LOG_RETENTION_SECONDS = 86_400;
const SUGGESTED_RETENTION_SECONDS = 7 * 86_400;

const VARIABLES = [
  'log_bin',
  'binlog_format',
  'binlog_row_image',
  'binlog_expire_logs_seconds',
  'expire_logs_days',
  // MySQL 8.0.20+: the binlog client cannot read compressed transactions (MariaDB's
  // log_bin_compress it can).
  'binlog_transaction_compression',
  // MySQL 8.0.3+: PARTIAL_JSON logs an update of a JSON column as a diff, which the binlog
  // client cannot decode.
  'binlog_row_value_options',
  // Reported, not required: the follower resumes by file and position either way.
  'gtid_mode',
  // FULL lets the client read each table's columns from the log itself, with no lookup in
  // information_schema that pauses the stream (and none that an ALTER TABLE made meanwhile can
  // mislead); MariaDB 10.5+ has it too.
  'binlog_row_metadata',
] as const;

export interface BinlogServerFacts {
  /** The server's values of VARIABLES, absent where the server has no such variable. */
  variables: ReadonlyMap<string, string>;
  /** The user's global privileges (information_schema.USER_PRIVILEGES). */
  globalPrivileges: ReadonlySet<string>;
  /** The user's privileges on the legacy database (SCHEMA_PRIVILEGES, wildcards included). */
  databasePrivileges: ReadonlySet<string>;
  /** The account as GRANT names it: 'api_sync'@'%'. */
  account: string;
  database: string;
}

export interface PreflightFinding {
  what: string;
  /** What the server has now. */
  seen: string;
  /** The setting or GRANT to add; absent when nothing is missing. */
  fix?: string;
  /** A setting worth making that is not required: the follower works without it. */
  advice?: string;
}

const quoteId = (name: string) => `\`${name.replace(/`/g, '``')}\``;

/** Reads the facts over a connection of the worker's own user. */
export async function readBinlogServerFacts(
  conn: Connection,
  database: string,
): Promise<BinlogServerFacts> {
  const variables = await conn.query<{ Variable_name: string; Value: string }[]>(
    `SHOW GLOBAL VARIABLES WHERE Variable_name IN (${VARIABLES.map(() => '?').join(', ')})`,
    [...VARIABLES],
  );
  const [{ account }] = await conn.query<[{ account: string }]>('SELECT CURRENT_USER() AS account');
  // CURRENT_USER() is user@host; the privilege tables name it 'user'@'host'.
  const at = account.lastIndexOf('@');
  const grantee = `'${account.slice(0, at)}'@'${account.slice(at + 1)}'`;
  const global = await conn.query<{ privilege: string }[]>(
    `SELECT PRIVILEGE_TYPE AS privilege FROM information_schema.USER_PRIVILEGES
      WHERE GRANTEE = ?`,
    [grantee],
  );
  const onDatabase = await conn.query<{ privilege: string }[]>(
    `SELECT PRIVILEGE_TYPE AS privilege FROM information_schema.SCHEMA_PRIVILEGES
      WHERE GRANTEE = ? AND ? LIKE TABLE_SCHEMA`,
    [grantee, database],
  );
  return {
    variables: new Map(variables.map((v) => [v.Variable_name.toLowerCase(), v.Value])),
    globalPrivileges: new Set(global.map((p) => p.privilege)),
    databasePrivileges: new Set(onDatabase.map((p) => p.privilege)),
    account: grantee,
    database,
  };
}

/** Every requirement, met or not; the ones with a `fix` are missing. */
export function binlogPreflight(facts: BinlogServerFacts): PreflightFinding[] {
  const value = (name: string) => facts.variables.get(name)?.toUpperCase() ?? '(absent)';
  const setting = (name: string, wanted: string, dynamic: boolean) =>
    `${name} = ${wanted} under [mysqld] in the server's configuration` +
    (dynamic
      ? `, and at once: SET GLOBAL ${name} = '${wanted}' (sessions already open keep the old value)`
      : ', then restart the server');
  const findings: PreflightFinding[] = [];
  const expect = (name: string, wanted: string, dynamic: boolean) => {
    const seen = value(name);
    findings.push({
      what: name,
      seen,
      ...(seen === wanted ? {} : { fix: setting(name, wanted, dynamic) }),
    });
  };

  const logOn = value('log_bin') === 'ON';
  findings.push({
    what: 'log_bin',
    seen: value('log_bin'),
    ...(logOn
      ? {}
      : {
          fix:
            "log_bin = mysql-bin and server_id = 1 (any id no replica uses) under [mysqld] in the server's " +
            'configuration, then restart the server (the log cannot be turned on while it runs)',
        }),
  });
  expect('binlog_format', 'ROW', true);
  expect('binlog_row_image', 'FULL', true);
  if (facts.variables.has('binlog_transaction_compression')) {
    expect('binlog_transaction_compression', 'OFF', true);
  }
  if (facts.variables.has('binlog_row_value_options')) {
    const seen = facts.variables.get('binlog_row_value_options') || '(empty)';
    findings.push({
      what: 'binlog_row_value_options',
      seen,
      ...(/PARTIAL_JSON/i.test(seen)
        ? {
            fix:
              "binlog_row_value_options = '' under [mysqld] in the server's configuration, and at " +
              "once: SET GLOBAL binlog_row_value_options = '' (with PARTIAL_JSON an update of a " +
              'JSON column is logged as a diff the worker cannot read: it would stop following ' +
              'the log at the first and poll instead)',
          }
        : {}),
    });
  }
  findings.push(retention(facts.variables));
  findings.push({
    what: 'gtid_mode',
    seen: facts.variables.get('gtid_mode') ?? "(absent: MariaDB's GTIDs are always on)",
  });
  const metadata = value('binlog_row_metadata');
  findings.push({
    what: 'binlog_row_metadata',
    seen: metadata,
    ...(metadata === 'FULL'
      ? {}
      : {
          advice:
            "FULL advised, not required: binlog_row_metadata = FULL under [mysqld] in the server's " +
            'configuration (dynamic): each table map then names its columns, so the worker reads ' +
            'no column list from information_schema while following the log',
        }),
  });

  const missingGlobal = [
    ['REPLICATION SLAVE'],
    // MariaDB 10.5 renamed REPLICATION CLIENT to BINLOG MONITOR and keeps the old name as an alias.
    ['REPLICATION CLIENT', 'BINLOG MONITOR'],
  ].filter((names) => !names.some((name) => facts.globalPrivileges.has(name)));
  findings.push({
    what: 'REPLICATION SLAVE, REPLICATION CLIENT',
    seen: missingGlobal.length === 0 ? 'granted' : 'not granted',
    ...(missingGlobal.length === 0
      ? {}
      : {
          fix: `GRANT ${missingGlobal.map((names) => names[0]).join(', ')} ON *.* TO ${facts.account};`,
        }),
  });
  const canSelect = facts.globalPrivileges.has('SELECT') || facts.databasePrivileges.has('SELECT');
  findings.push({
    what: `SELECT on ${facts.database}`,
    seen: canSelect ? 'granted' : 'not granted',
    ...(canSelect
      ? {}
      : { fix: `GRANT SELECT ON ${quoteId(facts.database)}.* TO ${facts.account};` }),
  });
  return findings;
}

/**
 * MySQL 8 and MariaDB 10.6+ have binlog_expire_logs_seconds; older MariaDB only
 * expire_logs_days. Zero in both: logs are never purged by age.
 */
function retention(variables: ReadonlyMap<string, string>): PreflightFinding {
  const seconds = Number(variables.get('binlog_expire_logs_seconds') ?? 0);
  const days = Number(variables.get('expire_logs_days') ?? 0);
  const kept = seconds > 0 ? seconds : days * 86_400;
  const seen = kept === 0 ? 'kept until purged by hand' : `${kept} s`;
  if (kept === 0 || kept >= MIN_LOG_RETENTION_SECONDS) {
    return { what: 'binary log retention', seen };
  }
  const fix = variables.has('binlog_expire_logs_seconds')
    ? `binlog_expire_logs_seconds = ${SUGGESTED_RETENTION_SECONDS} under [mysqld], and at once: ` +
      `SET GLOBAL binlog_expire_logs_seconds = ${SUGGESTED_RETENTION_SECONDS}`
    : `expire_logs_days = ${SUGGESTED_RETENTION_SECONDS / 86_400} under [mysqld], and at once: ` +
      `SET GLOBAL expire_logs_days = ${SUGGESTED_RETENTION_SECONDS / 86_400}`;
  return {
    what: 'binary log retention',
    seen,
    fix: `${fix} (at least ${MIN_LOG_RETENTION_SECONDS} s)`,
  };
}
