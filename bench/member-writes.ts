// npm run bench -- --only member-writes [--seconds N --connections C --profile]: latency of
// POST /members (legacy transaction, read-model publish, audit) at C concurrent clients, each
// creating members one after another, beside GET /members/{id} measured the same way in the same
// run. Creates run once with every client in its own branch and once with all in one branch
// (serialised on the branch's counter row). The gateway runs as production runs it, compiled and
// in its own process (bench/gateway/processes.ts), so the load generated here never counts in its
// latency; its CPU time per request is read from /proc. A throwaway environment on the configured
// servers, dropped at the end.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../common/config.js';
import { createReadModelClient } from '../common/databases.js';
import { createClient } from '../gateway/src/features/clients/clients.repository.js';
import { connectLegacy } from '../scripts/legacy/legacy-database.js';
import { createThrowawayEnvironment, serverUrlsOf } from '../scripts/throwaway-environment.js';
import { startGateway, type Started } from './gateway/processes.js';
import { printProfileSplit } from './gateway/profile.js';

interface Options {
  seconds: number;
  connections: number;
  profile: boolean;
}

interface Figures {
  count: number;
  p50: number;
  p95: number;
  cpuMsPerRequest: number;
}

let phoneSequence = 0;
const nextPhone = () => `05${String(300_000_000 + ++phoneSequence).padStart(9, '0')}`;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** `connections` loops calling `call` back to back for `seconds`; latencies in ms. */
async function loadOf(
  gateway: Started,
  options: Pick<Options, 'seconds' | 'connections'>,
  call: (client: number) => Promise<Response>,
): Promise<Figures> {
  const latencies: number[] = [];
  const cpuBefore = gateway.cpuMs();
  const deadline = Date.now() + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.connections }, async (_, client) => {
      while (Date.now() < deadline) {
        const started = performance.now();
        const response = await call(client);
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`bench call answered ${response.status}`);
        latencies.push(performance.now() - started);
      }
    }),
  );
  const cpuMs = gateway.cpuMs() - cpuBefore;
  const sorted = latencies.sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    cpuMsPerRequest: cpuMs / Math.max(1, sorted.length),
  };
}

const line = (name: string, r: Figures, seconds: number) =>
  `${name.padEnd(34)} ${(r.count / seconds).toFixed(0).padStart(5)} req/s  p50 ${r.p50.toFixed(1)} ms  p95 ${r.p95.toFixed(1)} ms  gateway CPU ${r.cpuMsPerRequest.toFixed(2)} ms/req\n`;

export async function benchMemberWrites(options: Options) {
  const env = await createThrowawayEnvironment(serverUrlsOf(loadConfig()), 'bench');
  const profileDir = options.profile
    ? mkdtempSync(path.join(tmpdir(), 'member-writes-profile-'))
    : undefined;
  const db = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  let gateway: Started | undefined;
  try {
    const admin = await connectLegacy(env.legacyUrl);
    const branches: number[] = [];
    for (let i = 0; i < options.connections; i++) {
      const result = await admin.query<{ insertId: bigint }>(
        "INSERT INTO branches (name, status) VALUES (?, 'Aktif')",
        [`Bench ${i}`],
      );
      branches.push(Number(result.insertId));
    }
    await admin.end();
    const client = await createClient(db, {
      name: 'bench',
      scopes: ['members:read', 'members:write'],
      branchId: null,
      limits: { minute: 1e9, hour: 1e9, day: 1e9 },
    });
    gateway = await startGateway(
      {
        DATABASE_URL: env.databaseUrl,
        LEGACY_DATABASE_URL: env.legacyGatewayUrl,
        REDIS_URL: env.redisUrl,
        REDIS_PREFIX: env.redisPrefix,
      },
      { profileDir },
    );
    const base = `${gateway.url}/api/v1`;
    const tokenResponse = await fetch(`${base}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_key: client.client_key, client_secret: client.client_secret }),
    });
    const token = ((await tokenResponse.json()) as { data: { access_token: string } }).data
      .access_token;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const create = (branch: number) =>
      fetch(`${base}/members`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ full_name: 'Bench', phone: nextPhone(), branch_id: branch }),
      });
    const read = () => fetch(`${base}/members/1`, { headers });

    const g = gateway;
    await loadOf(g, { ...options, seconds: 2 }, (c) => create(branches[c]!)); // warm-up
    await loadOf(g, { ...options, seconds: 1 }, read);
    const own = await loadOf(g, options, (c) => create(branches[c]!));
    const shared = await loadOf(g, options, () => create(branches[0]!));
    const reads = await loadOf(g, options, read);
    process.stdout.write(
      `${options.connections} concurrent clients, ${options.seconds} s each; the compiled gateway in its own process (wall figures noisy on a shared machine, CPU per request less so)\n` +
        line('POST /members, own branch each', own, options.seconds) +
        line('POST /members, all in one branch', shared, options.seconds) +
        line('GET /members/{id}', reads, options.seconds),
    );
  } finally {
    await gateway?.stop();
    await db.$disconnect();
    await env.destroy();
  }
  if (profileDir) printProfileSplit(profileDir);
}
