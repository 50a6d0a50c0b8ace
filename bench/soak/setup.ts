// The soak's world: a generated dashboard, the partners' clients, the worker and the gateways
// compiled and each in its own process (bench/gateway/processes.ts), every retention at five
// minutes, and the load processes forked beside them.
import { fork, type ChildProcess } from 'node:child_process';
import { createReadModelClient, readModelPool, type ReadModelClient } from '#common/databases.js';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import { connectLegacy } from '../../scripts/legacy/legacy-database.js';
import type { ThrowawayEnvironment } from '../../scripts/throwaway-environment.js';
import { onInterrupt } from '../cleanup.js';
import { BENCH_SECRETS_KEY, startGateway, startWorker } from '../gateway/processes.js';
import { createBenchClient } from '../gateway/seed.js';
import { Supervised, type Crash } from './supervised.js';
import type { Credentials } from './messages.js';

export const RETENTION_MINUTES = 5;
const REFRESH_TOKEN_TTL_SECONDS = 120;
/**
 * The webhook retry schedule, compressed as the retentions are: the default's last try comes 36
 * hours after the first (docs/operations/configure.md, WEBHOOK_RETRY_SCHEDULE), so a subscriber failing a tenth of its deliveries
 * leaves events owed, kept and growing for that long; here every event is delivered or failed
 * within about four minutes (each step ±20 %).
 */
const RETRY_SCHEDULE_SECONDS = [5, 30, 60, 120];
/**
 * When every kind of row has been through its first retention period: the last to be purged for
 * the first time are a webhook event's, RETENTION_MINUTES after its last try (the whole schedule,
 * +20 %), and a token pair's, RETENTION_MINUTES after its refresh token expires (audit rows and
 * changes go RETENTION_MINUTES after they are written). Until then the tables only fill; the
 * flat-line checks count from the first report after it.
 */
export const FIRST_RETENTION_ENDS_MINUTES =
  RETENTION_MINUTES +
  Math.max(
    REFRESH_TOKEN_TTL_SECONDS / 60,
    (1.2 * RETRY_SCHEDULE_SECONDS.reduce((sum, s) => sum + s, 0)) / 60,
  );
/** About 3,000 members and their history (scripts/legacy/generate-data.ts). */
const SCALE = 10;
const BOUND_BRANCH = 1;

/**
 * What both processes run with: every retention at five minutes (the purge runs every tenth of
 * the shortest, worker/src/retention.ts), webhook retries within minutes, and token lifetimes
 * short enough (a minute, a refresh
 * token two) that the rows of expired pairs reach their retention early in the run; the partners
 * renew more often than that (TOKEN_EVERY_SECONDS in bench/soak.ts).
 */
export function processVariables(env: ThrowawayEnvironment): Record<string, string> {
  const days = String(RETENTION_MINUTES / 1440);
  return {
    DATABASE_URL: env.databaseUrl,
    REDIS_URL: env.redisUrl,
    REDIS_PREFIX: env.redisPrefix,
    TOKEN_RETENTION_DAYS: days,
    AUDIT_RETENTION_DAYS: days,
    CHANGES_RETENTION_DAYS: days,
    WEBHOOK_RETENTION_DAYS: days,
    ACCESS_TOKEN_TTL_SECONDS: '60',
    REFRESH_TOKEN_TTL_SECONDS: String(REFRESH_TOKEN_TTL_SECONDS),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE_SECONDS.join(','),
    SECRETS_KEY: BENCH_SECRETS_KEY,
  };
}

/** The generated dashboard and the ids the load works on. */
export async function generateDashboard(legacyUrl: string) {
  const conn = await connectLegacy(legacyUrl);
  try {
    await generateLegacyData(conn, { scale: SCALE, seed: 4 });
    const ids = async (sql: string) =>
      (await conn.query<{ id: number }[]>(sql)).map((row) => Number(row.id));
    const members = await conn.query<{ id: number; branch_id: number }[]>(
      'SELECT id, branch_id FROM members WHERE is_deleted = 0 ORDER BY id',
    );
    return {
      memberIds: members.map((m) => Number(m.id)),
      boundMemberIds: members.filter((m) => m.branch_id === BOUND_BRANCH).map((m) => Number(m.id)),
      branchIds: await ids(`SELECT id FROM branches WHERE status = 'Aktif' ORDER BY id`),
      staffIds: await ids('SELECT id FROM staff ORDER BY id'),
      transactionCount: (await ids('SELECT MAX(id) AS id FROM financial_transactions'))[0]!,
      generatedMemberMax: (await ids('SELECT MAX(id) AS id FROM members'))[0]!,
    };
  } finally {
    await conn.end();
  }
}

/** `count` clients allowed everything with limits no run reaches; `bound` of them on a branch. */
export async function benchClients(db: ReadModelClient, count: number, bound = 0) {
  const clients = [];
  for (let i = 0; i < count; i++) {
    const branch = i < bound ? BOUND_BRANCH : null;
    const client = await createBenchClient(db, branch);
    const credentials: Credentials = {
      key: client.client_key,
      secret: client.client_secret,
      bound: branch !== null,
    };
    clients.push({ id: client.id, credentials });
  }
  return clients;
}

/** The worker, once its first load of every table is done. */
export async function startLoadedWorker(
  env: ThrowawayEnvironment,
  crashes: Crash[],
): Promise<Supervised> {
  const variables = { ...processVariables(env), LEGACY_DATABASE_URL: env.legacyReadOnlyUrl };
  const start = () => startWorker(variables, { built: true });
  const worker = new Supervised('worker', await start(), start, crashes);
  const readModel = createReadModelClient(env.databaseUrl, { poolSize: 1 });
  try {
    for (;;) {
      const { rows } = await readModelPool(readModel).query<{ behind: number }>(
        `SELECT count(*)::int AS behind FROM sync_state WHERE synced_at IS NULL`,
      );
      if (rows[0]!.behind === 0) return worker;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await readModel.$disconnect();
  }
}

/** A gateway that, killed, starts again on the same port. */
export async function startSoakGateway(
  env: ThrowawayEnvironment,
  name: string,
  crashes: Crash[],
): Promise<Supervised> {
  const variables = { ...processVariables(env), LEGACY_DATABASE_URL: env.legacyGatewayUrl };
  const first = await startGateway(variables, { built: true });
  const port = Number(new URL(first.url).port);
  const start = () => startGateway(variables, { built: true, port });
  return new Supervised(name, first, start, crashes);
}

/** A load process (bench/soak/*.ts under tsx), killed on an interrupt. */
export function forkLoad(script: string, options: unknown): ChildProcess {
  const child = fork(script, [JSON.stringify(options)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const forget = onInterrupt(() => Promise.resolve(child.kill('SIGKILL')));
  child.once('exit', forget);
  return child;
}

/** The next message of `kind` from `child`; rejected if it exits first. */
export function messageOf<T extends { kind: string }>(
  child: ChildProcess,
  kind: T['kind'],
): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: T) => {
      if (message.kind !== kind) return;
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`${kind}: the load process exited (${code})`)));
  });
}
