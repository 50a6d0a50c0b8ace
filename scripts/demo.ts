// `npm run demo`: on a machine with PostgreSQL, MySQL/MariaDB and Redis on their default ports,
// creates a demo legacy database with generated data (a legacy database that already has members
// is used as it is), migrates the read model, creates a demo
// client, runs gateway and worker, and prints a working curl line. Ctrl-C stops everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfigOrExit } from '../common/config.js';
import { createReadModelClient } from '../common/databases.js';
import { SCOPES } from '../gateway/src/features/auth/scopes.js';
import { createClient } from '../gateway/src/features/clients/clients.repository.js';
import { migrateReadModel } from '../prisma/read-model/migrate.js';
import { seedLegacyDatabase } from './legacy/seed.js';

const config = loadConfigOrExit();
const say = (line: string) => console.log(`[demo] ${line}`);

say(await seedLegacyDatabase(config.legacy.url));

const applied = await migrateReadModel(config.db.url);
say(
  applied.length > 0 ? `read model migrated (${applied.join(', ')})` : 'read model is up to date',
);

const db = createReadModelClient(config.db.url, { poolSize: 2 });
const client = await createClient(db, {
  name: `demo ${new Date().toISOString()}`,
  scopes: [...SCOPES],
  branchId: null,
});
await db.$disconnect();
say(`demo client ${client.client_key} created`);

const children: ChildProcess[] = [];
function run(script: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: process.env,
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

run('worker/src/main.ts');
run('gateway/src/main.ts');

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
say('Ctrl-C stops gateway and worker.');
