// `npm run demo`: on a machine with PostgreSQL, MySQL/MariaDB and Redis on their default ports,
// creates a demo legacy database with generated data (a legacy database that already has members
// is used as it is), migrates the read model, creates a demo
// client, runs gateway and worker, and prints a working curl line. Ctrl-C stops everything.
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
import { binlogPreflight, readBinlogServerFacts } from '../worker/src/sync/preflight.js';
import { connectLegacy, databaseName } from './legacy/legacy-database.js';
import { seedLegacyDatabase } from './legacy/seed.js';
import {
  BINLOG_GRANTS,
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
  const gateway = account('demo_api_gateway');
  const worker = account('demo_api_sync');
  const admin = await connectLegacy(config.legacy.url);
  try {
    const database = databaseName(config.legacy.url);
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

const db = createReadModelClient(config.db.url, { poolSize: 2 });
const client = await createClient(db, createClientSecrets(config.secrets.keys), {
  name: `demo ${new Date().toISOString()}`,
  scopes: [...SCOPES],
  branchId: null,
});
await db.$disconnect();
say(`demo client ${client.client_key} created`);

/** The demo's own SECRETS_KEY, public like the demo itself; one set in the environment wins. */
const DEMO_SECRETS_KEY = Buffer.from('npm-run-demo key, never secret!!').toString('base64');
const secretsKey = config.secrets.development ? DEMO_SECRETS_KEY : config.secrets.keys.join(',');

const children: ChildProcess[] = [];
function run(
  script: string,
  legacyUrl: string,
  metricsPort: number,
  variables: Record<string, string> = {},
) {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'inherit', 'inherit'],
    // Both processes serve metrics; on one host each needs its own port.
    env: {
      ...process.env,
      LEGACY_DATABASE_URL: legacyUrl,
      METRICS_PORT: String(metricsPort),
      SECRETS_KEY: secretsKey,
      ...variables,
    },
  });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      say(`${script} exited (${signal ?? code}); stopping`);
      void stop(1);
    }
  });
  children.push(child);
}
let stopping = false;
async function stop(code: number) {
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  await sleep(500);
  process.exit(code);
}
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));

run('worker/src/main.ts', legacyUrlOf.worker, config.metrics.port + 1, {
  SYNC_SOURCE: workerSource,
});
run('gateway/src/main.ts', legacyUrlOf.gateway, config.metrics.port);

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
  return stop(1) as never;
}

await waitFor('gateway ready', async () => ((await fetch(`${base}/readyz`)).ok ? true : null));
const token = await waitFor('token issued', async () => {
  const response = await fetch(`${base}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_key: client.client_key, client_secret: client.client_secret }),
  });
  return response.ok
    ? ((await response.json()) as { data: { access_token: string } }).data.access_token
    : null;
});
await waitFor('members synced', async () => {
  const response = await fetch(`${base}/api/v1/members?limit=1`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as { pagination?: { total: number } };
  return body.pagination && body.pagination.total > 0 ? true : null;
});

say('ready. client credentials (the secret is shown only once):');
say(`  client_key=${client.client_key}`);
say(`  client_secret=${client.client_secret}`);
say('try:');
console.log(`curl -s -H 'Authorization: Bearer ${token}' '${base}/api/v1/members?limit=5'`);
console.log(
  `curl -s -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' -H 'Idempotency-Key: demo-1' -d '{"full_name":"Deneme","phone":"+90 532 000 00 01","branch_id":1}' '${base}/api/v1/members'`,
);
say('Ctrl-C stops gateway and worker.');
