// Requests held in flight on a real gateway process for as long as a test likes: every request
// authenticates against api_tokens, so an exclusive lock on that table holds them all (the test,
// not the machine, decides when they may finish). For the gateway's SIGTERM files.
import pg from 'pg';
import { expect } from 'vitest';
import { eventually } from './eventually.js';
import type { ReadModelClient } from '#common/databases.js';
import type { TestEnvironment } from './environment.js';
import type { TestClient } from './gateway.js';
import { environmentVariables, startGatewayProcess } from './processes.js';

/** Requests held at once. */
export const IN_FLIGHT = 10;

/** The gateway process on `env`, whose held requests may wait on the lock past its query bound. */
function startHoldingGateway(env: TestEnvironment, shutdownTimeoutMs: number) {
  return startGatewayProcess({
    ...environmentVariables(env),
    SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs),
    // The held requests wait on a lock longer than the default query bound allows.
    DB_QUERY_TIMEOUT_MS: '30000',
  });
}

async function tokenFrom(url: string, client: TestClient): Promise<string> {
  const response = await fetch(`${url}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_key: client.client_key, client_secret: client.client_secret }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { access_token: string } }).data.access_token;
}

/** A connection holding api_tokens in ACCESS EXCLUSIVE mode until it commits or rolls back. */
async function lockTokens(env: TestEnvironment): Promise<pg.Client> {
  const locker = new pg.Client({ connectionString: env.databaseUrl });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE api_tokens IN ACCESS EXCLUSIVE MODE');
  return locker;
}

/** Statements of the environment's database waiting on a lock. */
async function waitersOnLock(db: ReadModelClient): Promise<number> {
  const rows = await db.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock'`;
  return Number(rows[0]?.n ?? 0);
}

/** IN_FLIGHT member lists with `token`, each resolving with its status and body (0: no answer). */
function holdRequests(url: string, token: string) {
  return Array.from({ length: IN_FLIGHT }, () =>
    fetch(`${url}/api/v1/members`, { headers: { authorization: `Bearer ${token}` } }).then(
      async (r) => ({ status: r.status, body: await r.text() }),
      (error: unknown) => ({ status: 0, body: String(error) }),
    ),
  );
}

/**
 * A gateway process started on `env` with `client`'s token, and IN_FLIGHT requests of it waiting
 * on the lock `locker` holds: the process is to be ended by the test, `locker` committed or rolled
 * back and ended.
 */
export async function gatewayWithHeldRequests(
  env: TestEnvironment,
  db: ReadModelClient,
  client: TestClient,
  shutdownTimeoutMs: number,
) {
  const gateway = await startHoldingGateway(env, shutdownTimeoutMs);
  const token = await tokenFrom(gateway.url, client);
  const locker = await lockTokens(env);
  const answers = holdRequests(gateway.url, token);
  await eventually(async () => expect(await waitersOnLock(db)).toBe(IN_FLIGHT), 10_000, 50);
  return { gateway, locker, answers };
}
