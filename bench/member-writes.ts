// npm run bench -- --only member-writes [--seconds N --connections C --profile]: latency of
// POST /members (legacy transaction, read-model publish, audit) at C concurrent clients, each
// creating members one after another, beside GET /members/{id} measured the same way in the same
// run. Creates run once spread over C branches in turn and once with all in one branch
// (serialised on the branch's counter row). The gateway runs as production runs it, compiled and
// in its own process (bench/gateway/processes.ts), and the load comes from wrk in another
// (bench/gateway/load.ts: a Lua body per request, a new phone each), so the load generator's
// work is in neither the gateway's latency nor its CPU time per request, read from /proc. A
// throwaway environment on the configured servers, dropped at the end.
import { createReadModelClient } from '#common/databases.js';
import { createClient } from '../gateway/src/features/clients/clients.repository.js';
import { createClientSecrets } from '../gateway/src/trust/client-secrets.js';
import { connectLegacy } from '../scripts/legacy/legacy-database.js';
import { benchEnvironment, makeTempDir, releaseInTurn, removeTempDir } from './cleanup.js';
import { applyLoad, loadGenerator, type LoadRequest } from './gateway/load.js';
import { BENCH_SECRETS_KEY, startGateway, type Started } from './gateway/processes.js';
import { printProfileSplit } from './gateway/profile.js';

interface Options {
  seconds: number;
  connections: number;
  profile: boolean;
}

interface Figures {
  requestsPerSecond: number;
  p50: number;
  p95: number;
  cpuMsPerRequest: number;
}

/** Each load's phones start at their own million, so no two creates of a run share one. */
let phoneBlock = 0;

/** `connections` wrk connections, each calling back to back for `seconds`. */
async function loadOf(
  gateway: Started,
  options: Pick<Options, 'seconds' | 'connections'>,
  request: Pick<LoadRequest, 'url' | 'method' | 'headers' | 'bodyOf'>,
): Promise<Figures> {
  const cpuBefore = gateway.cpuMs();
  const result = await applyLoad({ ...request, ...options });
  const cpuMs = gateway.cpuMs() - cpuBefore;
  if (result.failures > 0) throw new Error(`bench load: ${result.failures} calls failed`);
  const count = result.requestsPerSecond * options.seconds;
  return {
    requestsPerSecond: result.requestsPerSecond,
    p50: result.p50Ms,
    p95: result.p95Ms ?? NaN,
    cpuMsPerRequest: cpuMs / Math.max(1, count),
  };
}

const line = (name: string, r: Figures) =>
  `${name.padEnd(34)} ${r.requestsPerSecond.toFixed(0).padStart(5)} req/s  p50 ${r.p50.toFixed(1)} ms  p95 ${r.p95.toFixed(1)} ms  gateway CPU ${r.cpuMsPerRequest.toFixed(2)} ms/req\n`;

export async function benchMemberWrites(options: Options) {
  const env = await benchEnvironment('bench');
  const db = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  let gateway: Started | undefined;
  let profileDir: string | undefined;
  let measured = false;
  try {
    if (options.profile) profileDir = makeTempDir('member-writes-profile-');
    const admin = await connectLegacy(env.legacyUrl);
    const branches: number[] = [];
    try {
      for (let i = 0; i < options.connections; i++) {
        const result = await admin.query<{ insertId: bigint }>(
          "INSERT INTO branches (name, status) VALUES (?, 'Aktif')",
          [`Bench ${i}`],
        );
        branches.push(Number(result.insertId));
      }
    } finally {
      await admin.end();
    }
    const client = await createClient(db, createClientSecrets([BENCH_SECRETS_KEY]), {
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
    // A Lua body per request (bench/gateway/load.ts): a new phone each, `05` and nine digits.
    const create = (branchOf: string) => ({
      url: `${base}/members`,
      method: 'POST' as const,
      headers,
      bodyOf: `string.format('{"full_name":"Bench","phone":"05%09d","branch_id":%d}', ${300_000_000 + 1_000_000 * ++phoneBlock} + n, ${branchOf})`,
    });
    const inTurn = `({${branches.join(',')}})[n % ${branches.length} + 1]`;
    const read = { url: `${base}/members/1`, method: 'GET' as const, headers };

    const g = gateway;
    await loadOf(g, { ...options, seconds: 2 }, create(inTurn)); // warm-up
    await loadOf(g, { ...options, seconds: 1 }, read);
    const own = await loadOf(g, options, create(inTurn));
    const shared = await loadOf(g, options, create(String(branches[0]!)));
    const reads = await loadOf(g, options, read);
    process.stdout.write(
      `${options.connections} concurrent clients (${loadGenerator} connections), ${options.seconds} s each; the compiled gateway in its own process (wall figures noisy on a shared machine, CPU per request less so)\n` +
        line('POST /members, branches in turn', own) +
        line('POST /members, all in one branch', shared) +
        line('GET /members/{id}', reads),
    );
    measured = true;
  } finally {
    await releaseInTurn(
      () => gateway?.stop(),
      () => db.$disconnect(),
      () => env.destroy(),
      // The profile is written as the gateway exits: read it, then remove it.
      () => profileDir && measured && printProfileSplit(profileDir),
      () => profileDir && removeTempDir(profileDir),
    );
  }
}
