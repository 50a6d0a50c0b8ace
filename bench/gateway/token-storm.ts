// A storm of good token requests (decision 0003): how many pairs a second the gateway issues with
// the issuance limit in force (TOKEN_ISSUE_PER_MINUTE at production's default), spread over
// enough clients that none reaches it, and a valid client's read p99 beside the storm against
// its p99 alone. The storm has a gateway of its own, so the other rounds' raised limit does not
// apply; the loads are wrk processes of their own, the storm's bodies cycling through the clients.
import type { ReadModelClient } from '#common/databases.js';
import { createBenchClient, issueToken } from './seed.js';
import { applyLoad, loadGenerator, type LoadResult } from './load.js';
import { startGateway } from './processes.js';

/** Production's TOKEN_ISSUE_PER_MINUTE (common/config.ts), set explicitly. */
const ISSUE_PER_MINUTE = 60;
/**
 * The issuance rate the client count is sized for: above it some clients could reach their
 * limit, which would show as non-2xx answers.
 */
const SIZED_FOR_PER_SECOND = 3000;
/** Storm runs within one limit window: a warm-up, the storm alone, the storm beside the reads. */
const STORM_RUNS = 3;
const STORM_CONNECTIONS = 16;
const VALID_CONNECTIONS = 10;
const MEMBER_PATH = '/api/v1/members/1';

export interface StormOptions {
  db: ReadModelClient;
  /** The bench gateway's environment, without its raised issuance limit. */
  gatewayEnv: Record<string, string>;
  seconds: number;
  profileDir?: string;
}

/** Enough clients that each is asked at most ISSUE_PER_MINUTE times over the storm's runs. */
export function stormClientCount(seconds: number): number {
  return Math.ceil((SIZED_FOR_PER_SECOND * seconds * STORM_RUNS) / ISSUE_PER_MINUTE);
}

const describe = (r: LoadResult) =>
  `${Math.round(r.requestsPerSecond)} req/s p50 ${r.p50Ms.toFixed(2)} ms p99 ${r.p99Ms.toFixed(2)} ms`;

export async function benchTokenStorm(options: StormOptions): Promise<void> {
  if (loadGenerator !== 'wrk') {
    console.log('\ntoken storm: skipped (a body per request needs wrk: apt-get install wrk)');
    return;
  }
  const count = stormClientCount(options.seconds);
  const clients = [];
  for (let i = 0; i < count; i++) clients.push(await createBenchClient(options.db));
  const reader = await createBenchClient(options.db);
  const gateway = await startGateway(
    { ...options.gatewayEnv, TOKEN_ISSUE_PER_MINUTE: String(ISSUE_PER_MINUTE) },
    { built: true, profileDir: options.profileDir },
  );
  try {
    const token = await issueToken(gateway, reader.client_key, reader.client_secret);
    const pairs = clients
      .map((c) => `{${JSON.stringify(c.client_key)},${JSON.stringify(c.client_secret)}}`)
      .join(',\n');
    const storm = {
      url: `${gateway.url}/api/v1/auth/token`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/json' },
      // One wrk thread: n counts every request of the run, so the clients are asked in turn.
      lua: `local clients = {\n${pairs}\n}
local function bodyAt(n)
  local c = clients[(n - 1) % #clients + 1]
  return '{"client_key":"' .. c[1] .. '","client_secret":"' .. c[2] .. '"}'
end`,
      bodyOf: 'bodyAt(n)',
      connections: STORM_CONNECTIONS,
      seconds: options.seconds,
    };
    const valid = {
      url: `${gateway.url}${MEMBER_PATH}`,
      method: 'GET' as const,
      headers: { authorization: `Bearer ${token}` },
      connections: VALID_CONNECTIONS,
      seconds: options.seconds,
    };
    await applyLoad(storm); // warm-up: JIT, pools, heap
    const cpuBefore = gateway.cpuMs();
    const alone = await applyLoad(storm);
    const cpuMs = (gateway.cpuMs() - cpuBefore) / (alone.requestsPerSecond * options.seconds);
    const readAlone = await applyLoad(valid);
    const [readBeside, stormBeside] = await Promise.all([applyLoad(valid), applyLoad(storm)]);
    const failures = alone.failures + stormBeside.failures;
    const readFailures = readAlone.failures + readBeside.failures;
    console.log(
      `\ntoken storm: ${count} clients, TOKEN_ISSUE_PER_MINUTE ${ISSUE_PER_MINUTE}, ${STORM_CONNECTIONS} connections\n` +
        `  issuance: ${Math.round(alone.requestsPerSecond)} tokens/s (target ≥ 1000), p50 ${alone.p50Ms.toFixed(2)} ms ` +
        `p99 ${alone.p99Ms.toFixed(2)} ms, gateway CPU ${cpuMs.toFixed(3)} ms/token\n` +
        `  valid client (${VALID_CONNECTIONS} connections, ${MEMBER_PATH}): alone ${describe(readAlone)}; ` +
        `beside ${Math.round(stormBeside.requestsPerSecond)} tokens/s: ${describe(readBeside)}; ` +
        `p99 ratio ${(readBeside.p99Ms / readAlone.p99Ms).toFixed(2)} (target ≤ 1.1)` +
        (failures > 0 ? `\n  !! ${failures} token requests answered non-2xx` : '') +
        (readFailures > 0 ? `\n  !! ${readFailures} failed valid requests` : ''),
    );
  } finally {
    await gateway.stop();
  }
}
