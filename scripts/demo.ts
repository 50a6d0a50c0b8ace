// `npm run demo`: on a machine with PostgreSQL, MySQL/MariaDB and Redis on their default ports,
// creates a demo legacy database with generated data (a legacy database that already has members
// is used as it is), migrates the read model, creates a demo
// client, runs gateway and worker, and prints working curl lines, a console sign-in link and a
// portal link for the demo client. Ctrl-C stops everything.
// SYNC_SOURCE=binlog: the worker follows the binary log where the server allows it, and polls,
// saying why, where it does not.
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfigOrExit, type SyncSource } from '#common/config.js';
import { createReadModelClient } from '#common/databases.js';
import { SCOPES } from '#api/scopes.js';
import { createClient } from '../gateway/src/features/clients/clients.repository.js';
import { createClientSecrets } from '../gateway/src/trust/client-secrets.js';
import { migrateReadModel } from '#prisma/read-model/migrate.js';
import { randomBytes } from 'node:crypto';
import { productionCommand } from './production-command.js';
import { withRedis } from '../gateway/src/cli/link-options.js';
import { CONSOLE } from '../gateway/src/pages/areas.js';
import {
  cliOperator,
  recordOperatorAction,
} from '../gateway/src/features/operators/operator-audit.js';
import { makePortalLink } from '../gateway/src/features/portal/portal-links.js';
import { createSignInLink, linkKeysOf } from '../gateway/src/pages/sign-in-links.js';
import { binlogPreflight, readBinlogServerFacts } from '../worker/src/sync/preflight.js';
import { connectLegacy, databaseName } from './legacy/legacy-database.js';
import { seedLegacyDatabase } from './legacy/seed.js';
import { prepareSandbox } from './legacy/sandbox-club.js';
import {
  BINLOG_GRANTS,
  demoLegacyUserName,
  GATEWAY_GRANTS,
  provisionLegacyUser,
  SYNC_GRANTS,
  urlAs,
  type LegacyUser,
} from './legacy/legacy-users.js';

const config = loadConfigOrExit();
const say = (line: string) => console.log(`[demo] ${line}`);

say(await seedLegacyDatabase(config.legacy.url));

/**
 * Gateway and worker reach MySQL as their own least-privilege users, as in deployment; when
 * LEGACY_DATABASE_URL's user may not create users, both use it as it is.
 */
async function legacyUrls(): Promise<{ gateway: string; worker: string }> {
  const account = (user: string): LegacyUser => ({
    user,
    password: randomBytes(12).toString('hex'),
  });
  // Named after the database, so that demos over two databases of one server keep their own.
  const database = databaseName(config.legacy.url);
  const gateway = account(demoLegacyUserName(database, 'gateway'));
  const worker = account(demoLegacyUserName(database, 'sync'));
  const admin = await connectLegacy(config.legacy.url);
  try {
    await provisionLegacyUser(admin, database, gateway, GATEWAY_GRANTS);
    const following = config.sync.source === 'binlog';
    await provisionLegacyUser(admin, database, worker, [
      ...SYNC_GRANTS,
      ...(following ? BINLOG_GRANTS : []),
    ]);
    const reads = following ? 'SELECT and the binary log' : 'SELECT only';
    say(`legacy users ${gateway.user} (member writes) and ${worker.user} (${reads}) ready`);
    return { gateway: urlAs(config.legacy.url, gateway), worker: urlAs(config.legacy.url, worker) };
  } catch {
    say(
      'could not create the least-privilege legacy users; gateway and worker use LEGACY_DATABASE_URL',
    );
    return { gateway: config.legacy.url, worker: config.legacy.url };
  } finally {
    await admin.end();
  }
}
const legacyUrlOf = await legacyUrls();

/**
 * SYNC_SOURCE=binlog where the server and the worker's user allow it (`npm run sync:preflight`'s
 * checks); poll otherwise, saying what is missing, rather than a worker that never syncs.
 */
async function syncSource(workerUrl: string): Promise<SyncSource> {
  if (config.sync.source !== 'binlog') return 'poll';
  let missing: string[];
  try {
    const conn = await connectLegacy(workerUrl, { database: null });
    try {
      const findings = binlogPreflight(await readBinlogServerFacts(conn, databaseName(workerUrl)));
      missing = findings.filter((f) => f.fix).map((f) => `${f.what}: ${f.seen}`);
    } finally {
      await conn.end();
    }
  } catch (error) {
    missing = [`the check failed: ${(error as Error).message}`];
  }
  if (missing.length === 0) {
    say('SYNC_SOURCE=binlog: the worker follows the legacy binary log');
    return 'binlog';
  }
  say(
    `SYNC_SOURCE=binlog, but this legacy server does not allow following its binary log ` +
      `(${missing.join('; ')}): the worker polls instead. npm run sync:preflight names the ` +
      'setting or GRANT to add for each.',
  );
  return 'poll';
}

const workerSource = await syncSource(legacyUrlOf.worker);

const applied = await migrateReadModel(config.db.url);
say(
  applied.length > 0 ? `read model migrated (${applied.join(', ')})` : 'read model is up to date',
);
// The partners' sandbox: its generated club, for sandbox clients (npm run clients -- create
// --sandbox). Gateway and worker reach its dashboard as LEGACY_DATABASE_URL's user does.
if (config.sandbox.enabled) say(await prepareSandbox(config, migrateReadModel));
const sandboxVariables: Record<string, string> = config.sandbox.enabled
  ? { SANDBOX_LEGACY_DATABASE_URL: config.sandbox.legacyUrl }
  : {};

// One key for everything the demo stores and everything it starts: the configuration's
// SECRETS_KEY (the public development key when unset), which gateway and worker read from the
// same environment. A key of the demo's own, passed to them alone, left the client made here
// under another key than the one the gateway checks it with.
const db = createReadModelClient(config.db.url, { poolSize: 2 });
const client = await createClient(db, createClientSecrets(config.secrets.keys), {
  name: `demo ${new Date().toISOString()}`,
  scopes: [...SCOPES],
  branchId: null,
});
say(`demo client ${client.client_key} created`);

const children: ChildProcess[] = [];
function run(
  name: 'gateway' | 'worker',
  legacyUrl: string,
  metricsPort: number,
  variables: Record<string, string> = {},
) {
  const child = spawn(process.execPath, productionCommand(name), {
    stdio: ['ignore', 'inherit', 'inherit'],
    // A process group of its own: Ctrl-C reaches the demo alone, which then stops each child
    // with one SIGTERM (a second signal makes a process exit without finishing its work).
    detached: true,
    // Both processes serve metrics; on one host each needs its own port.
    env: {
      ...process.env,
      LEGACY_DATABASE_URL: legacyUrl,
      METRICS_PORT: String(metricsPort),
      ...variables,
    },
  });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      say(`${name} exited (${signal ?? code}); stopping`);
      void stop(1);
    }
  });
  children.push(child);
}
let stopping = false;
/** Stops gateway and worker, waiting for each to finish its work (SHUTDOWN_TIMEOUT_MS). */
async function stop(code: number): Promise<never> {
  stopping = true;
  const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
  const exits = running.map((child) => new Promise((resolve) => child.once('exit', resolve)));
  for (const child of running) child.kill('SIGTERM');
  const deadline = sleep(config.shutdownTimeoutMs + 5000, 'late');
  if ((await Promise.race([Promise.all(exits), deadline])) === 'late') {
    for (const child of running) child.kill('SIGKILL');
  }
  process.exit(code);
}
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));
// A demo that ends any other way takes its processes with it.
process.once('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

run('worker', legacyUrlOf.worker, config.metrics.port + 1, {
  SYNC_SOURCE: workerSource,
  ...sandboxVariables,
});
run('gateway', legacyUrlOf.gateway, config.metrics.port, sandboxVariables);

const base = `http://127.0.0.1:${config.http.port}`;
async function waitFor<T>(
  what: string,
  attempt: () => Promise<T | null>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const result = await attempt().catch(() => null);
    if (result !== null) return result;
    await sleep(300);
  }
  say(`${what} did not happen within ${timeoutMs / 1000} s`);
  return stop(1);
}

await waitFor('gateway ready', async () => ((await fetch(`${base}/readyz`)).ok ? true : null));
const token = await firstToken();

/**
 * The demo client's first token, tried a few times (the gateway has just become ready); a refusal
 * ends the demo with the gateway's reason and what to do, never a loop.
 */
async function firstToken(): Promise<string> {
  const TRIES = 5;
  let reason = '';
  for (let attempt = 1; attempt <= TRIES; attempt++) {
    try {
      const response = await fetch(`${base}/api/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_key: client.client_key,
          client_secret: client.client_secret,
        }),
      });
      // The API's error body: {success: false, error: CODE, message}.
      const body = (await response.json()) as {
        data?: { access_token: string };
        error?: string;
        message?: string;
      };
      if (response.ok && body.data) return body.data.access_token;
      reason = `the gateway answered ${response.status} ${body.error}, "${body.message}"`;
      // A wrong secret stays wrong, and more tries would only meet the failed-attempt limit.
      if (response.status === 401) break;
    } catch (error) {
      reason = `the gateway did not answer (${(error as Error).message})`;
    }
    await sleep(500 * attempt);
  }
  say(
    `no token for the demo client: ${reason}. The gateway must run with the SECRETS_KEY this ` +
      'command had when it made the client: start the demo again with SECRETS_KEY set the same ' +
      'for every process, or unset everywhere.',
  );
  return stop(1);
}

await waitFor('members synced', async () => {
  const response = await fetch(`${base}/api/v1/members?limit=1`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as { pagination?: { total: number } };
  return body.pagination && body.pagination.total > 0 ? true : null;
});

/**
 * A console sign-in link and a portal link for the demo client, made as the operator's commands
 * make them (`npm run console -- link`, `npm run clients -- portal-link`), recorded in the audit.
 */
async function pageLinks(): Promise<{ console: string; portal: string } | undefined> {
  const operator = cliOperator();
  const ttlMs = 60 * 60_000;
  try {
    // CONSOLE=off serves neither area (gateway/src/app.ts): no link would open.
    if (!config.console.enabled) return undefined;
    return await withRedis(config.redis, async (redis) => {
      const token = await createSignInLink(
        redis,
        linkKeysOf(config),
        { name: operator.actor },
        ttlMs,
      );
      await recordOperatorAction(db, operator, 'console.link', { target: operator.actor });
      const portal = await makePortalLink(
        {
          db,
          redis,
          prefix: config.redis.prefix,
          secretsKeys: config.secrets.keys,
          publicOrigin: config.console.publicOrigin,
        },
        operator,
        client.client_key,
        ttlMs,
      );
      return {
        console: `${config.console.publicOrigin}${CONSOLE}/sign-in/${token}`,
        portal: portal.url,
      };
    });
  } finally {
    await db.$disconnect();
  }
}
const links = await pageLinks();

say('ready. client credentials (the secret is shown only once):');
say(`  client_key=${client.client_key}`);
say(`  client_secret=${client.client_secret}`);
say('try:');
console.log(`curl -s -H 'Authorization: Bearer ${token}' '${base}/api/v1/members?limit=5'`);
console.log(
  `curl -s -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' -H 'Idempotency-Key: demo-1' -d '{"full_name":"Deneme","phone":"+90 532 000 00 01","branch_id":1}' '${base}/api/v1/members'`,
);
if (links) {
  say('pages (each link signs in once, within an hour):');
  say(`  console (operators): ${links.console}`);
  say(`  portal of the demo client: ${links.portal}`);
}
say('Ctrl-C stops gateway and worker.');
