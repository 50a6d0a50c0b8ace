// The two MySQL users of the product on the dashboard's database (least privilege): the worker
// reads, the gateway writes members the way the dashboard does. docker/mysql-init/02-users.sql
// grants the same for docker compose; test/sync/legacy-untouched.test.ts proves what they allow.
import type { Connection } from 'mariadb';

export interface LegacyUser {
  user: string;
  password: string;
}

/** What the gateway reads to validate and number, and the two tables a member write touches. */
export const GATEWAY_GRANTS = [
  'GRANT SELECT ON {db}.branches TO {user}',
  'GRANT SELECT, INSERT, UPDATE ON {db}.members TO {user}',
  'GRANT SELECT, INSERT, UPDATE ON {db}.member_counters TO {user}',
];

export const SYNC_GRANTS = ['GRANT SELECT ON {db}.* TO {user}'];

/**
 * Beside SYNC_GRANTS for SYNC_SOURCE=binlog: reading the binary log (MariaDB names REPLICATION
 * CLIENT BINLOG MONITOR and takes either).
 */
export const BINLOG_GRANTS = ['GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO {user}'];

const quoteId = (name: string) => `\`${name.replace(/`/g, '``')}\``;
const quoteUser = (user: string) => `'${user.replace(/'/g, "''")}'@'%'`;

/** Creates the user when missing and grants it `grants` on `database` (an admin connection). */
export async function provisionLegacyUser(
  admin: Connection,
  database: string,
  account: LegacyUser,
  grants: readonly string[],
): Promise<void> {
  await admin.query(`CREATE USER IF NOT EXISTS ${quoteUser(account.user)} IDENTIFIED BY ?`, [
    account.password,
  ]);
  // An existing user (a previous demo run) gets this run's password.
  await admin.query(`ALTER USER ${quoteUser(account.user)} IDENTIFIED BY ?`, [account.password]);
  await grantLegacyUser(admin, database, account.user, grants);
}

/** Grants an existing user `grants` on `database` (an admin connection). */
export async function grantLegacyUser(
  admin: Connection,
  database: string,
  user: string,
  grants: readonly string[],
): Promise<void> {
  for (const grant of grants) {
    await admin.query(grant.replace('{db}', quoteId(database)).replace('{user}', quoteUser(user)));
  }
}

/** The least-privilege user `npm run demo` makes for a process over `database` (32 characters at most, MySQL's bound). */
export const demoLegacyUserName = (database: string, process: 'gateway' | 'sync') =>
  `demo_${database.slice(0, 18)}_${process}`;

export async function dropLegacyUser(admin: Connection, account: LegacyUser): Promise<void> {
  await admin.query(`DROP USER IF EXISTS ${quoteUser(account.user)}`);
}

/** `url` with the account's credentials instead of its own. */
export function urlAs(url: string, account: LegacyUser): string {
  const parsed = new URL(url);
  parsed.username = account.user;
  parsed.password = account.password;
  return parsed.toString();
}
