// A flood of made-up bearer tokens beside a valid client (decision 0003): every flood request
// carries a random token of our tokens' length and alphabet, which fails their check, so the
// gateway must answer 401 without asking PostgreSQL. Prints the statements the bench database
// committed during the flood against an idle window of the same length, and the valid client's
// p99 beside the flood against its p99 alone. Both loads are wrk processes of their own.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { applyLoad, loadGenerator } from './load.js';
import type { Started } from './processes.js';

const FLOOD_CONNECTIONS = 10;
const VALID_CONNECTIONS = 10;
const MEMBER_PATH = '/api/v1/members/1';
/**
 * PostgreSQL 15 flushes a backend's statistics at most once a second while it works and 10 s
 * after it goes idle: counts are read once every backend has flushed.
 */
const STATS_SETTLE_MS = 11_000;

// A token of 49 base64url characters, as ours are, whose last 6 are not its check.
const RANDOM_TOKEN_LUA = `
local chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
math.randomseed(os.time())
local function randomToken()
  local t = {}
  for i = 1, 49 do
    local k = math.random(1, 64)
    t[i] = chars:sub(k, k)
  end
  return table.concat(t)
end`;

interface Counts {
  /** Transactions the database committed or rolled back (autovacuum's included). */
  transactions: number;
  /** Scans of api_tokens: a token lookup is one. */
  tokenScans: number;
}

async function withClient<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** What the database's statistics say it has done so far. */
function counts(databaseUrl: string): Promise<Counts> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ transactions: string; token_scans: string }>(
      `SELECT (SELECT xact_commit + xact_rollback FROM pg_stat_database
                WHERE datname = current_database()) AS transactions,
              (SELECT coalesce(idx_scan, 0) + seq_scan FROM pg_stat_user_tables
                WHERE relname = 'api_tokens') AS token_scans`,
    );
    return {
      transactions: Number(rows[0]?.transactions),
      tokenScans: Number(rows[0]?.token_scans),
    };
  });
}

/** What happened between two readings; a reading is one transaction of its own. */
const between = (from: Counts, to: Counts): Counts => ({
  transactions: to.transactions - from.transactions - 1,
  tokenScans: to.tokenScans - from.tokenScans,
});

export async function benchTokenFlood(
  gateway: Started,
  token: string,
  databaseUrl: string,
  seconds: number,
): Promise<void> {
  if (loadGenerator !== 'wrk') {
    console.log('\ntoken flood: skipped (random tokens per request need wrk: apt-get install wrk)');
    return;
  }
  const valid = {
    url: `${gateway.url}${MEMBER_PATH}`,
    method: 'GET' as const,
    headers: { authorization: `Bearer ${token}` },
    connections: VALID_CONNECTIONS,
    seconds,
  };
  const flood = {
    url: `${gateway.url}${MEMBER_PATH}`,
    method: 'GET' as const,
    headers: {},
    lua: RANDOM_TOKEN_LUA,
    headersOf: '{ ["Authorization"] = "Bearer " .. randomToken() }',
    connections: FLOOD_CONNECTIONS,
    seconds,
  };
  // Autovacuum's runs are transactions too, at moments of its own choosing: none in this
  // throwaway database from here on, so the count is the clients' alone.
  await withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ name: string }>(
      "SELECT format('%I', tablename) AS name FROM pg_tables WHERE schemaname = 'public'",
    );
    for (const { name } of rows)
      await client.query(`ALTER TABLE ${name} SET (autovacuum_enabled = false)`);
  });
  // Statements in an idle window first: what the gateway runs on its own (none expected).
  await sleep(STATS_SETTLE_MS);
  const idleStart = await counts(databaseUrl);
  await sleep(seconds * 1000 + STATS_SETTLE_MS);
  const floodStart = await counts(databaseUrl);
  const floodAlone = await applyLoad(flood);
  await sleep(STATS_SETTLE_MS);
  const floodEnd = await counts(databaseUrl);
  const idle = between(idleStart, floodStart);
  const duringFlood = between(floodStart, floodEnd);

  const alone = await applyLoad(valid);
  const [beside, floodBeside] = await Promise.all([applyLoad(valid), applyLoad(flood)]);
  const sent = Math.round(floodAlone.requestsPerSecond * seconds);
  console.log(
    `\ntoken flood: ${sent} made-up bearer tokens in ${seconds} s (${Math.round(floodAlone.requestsPerSecond)} req/s, ` +
      `${floodAlone.failures} answered non-2xx), ${FLOOD_CONNECTIONS} connections\n` +
      `  PostgreSQL: ${duringFlood.tokenScans} scans of api_tokens and ${duringFlood.transactions} transactions during the flood; ` +
      `${idle.tokenScans} and ${idle.transactions} in an idle window as long\n` +
      `  valid client (${VALID_CONNECTIONS} connections, ${MEMBER_PATH}): alone ${Math.round(alone.requestsPerSecond)} req/s p99 ${alone.p99Ms.toFixed(2)} ms; ` +
      `beside ${Math.round(floodBeside.requestsPerSecond)} req/s of flood: ${Math.round(beside.requestsPerSecond)} req/s p99 ${beside.p99Ms.toFixed(2)} ms; ` +
      `p99 ratio ${(beside.p99Ms / alone.p99Ms).toFixed(2)} (target ≤ 2)` +
      (alone.failures + beside.failures > 0
        ? `\n  !! ${alone.failures + beside.failures} failed valid requests`
        : ''),
  );
}
