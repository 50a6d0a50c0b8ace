// SIGTERM under load, on the real gateway process: requests held in flight by a table lock in
// PostgreSQL (deterministic: the test decides when they may finish) are all answered, the port
// stops accepting, and the process exits 0 before SHUTDOWN_TIMEOUT_MS. A second signal exits
// at once (within a second: so this file runs in the timed group). With each sync source (the
// gateway's part is the same with both). The worker's SIGTERM: resilience-shutdown-worker.test.ts.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import {
  createTestEnvironment,
  SYNC_SOURCES,
  type TestEnvironment,
} from '../support/environment.js';
import { createTestClient, type TestClient } from '../support/gateway.js';
import {
  environmentVariables,
  startGatewayProcess,
  type RunningProcess,
} from '../support/processes.js';
import { eventually } from '../support/eventually.js';

const IN_FLIGHT = 10;
const SHUTDOWN_TIMEOUT_MS = 8000;
let env: TestEnvironment;
let db: ReadModelClient;
let client: TestClient;
const started: RunningProcess[] = [];

describe.each(SYNC_SOURCES)('with SYNC_SOURCE=%s', (source) => {
  beforeAll(async () => {
    env = await createTestEnvironment({ syncSource: source });
    db = createReadModelClient(env.databaseUrl, { poolSize: 2 });
    client = await createTestClient(db);
  });

  afterAll(async () => {
    for (const p of started) p.kill();
    await db?.$disconnect();
    await env?.destroy();
  });

  async function startGateway() {
    const gateway = await startGatewayProcess({
      ...environmentVariables(env),
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      // The held requests wait on a lock longer than the default query bound allows.
      DB_QUERY_TIMEOUT_MS: '30000',
    });
    started.push(gateway);
    return gateway;
  }

  async function tokenFrom(url: string): Promise<string> {
    const response = await fetch(`${url}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_key: client.client_key, client_secret: client.client_secret }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: { access_token: string } }).data.access_token;
  }

  /** Every request authenticates against api_tokens: an exclusive lock on it holds them all. */
  async function lockTokens(): Promise<pg.Client> {
    const locker = new pg.Client({ connectionString: env.databaseUrl });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE api_tokens IN ACCESS EXCLUSIVE MODE');
    return locker;
  }

  async function waitersOnLock(): Promise<number> {
    const rows = await db.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock'`;
    return Number(rows[0]?.n ?? 0);
  }

  function holdRequests(url: string, token: string) {
    return Array.from({ length: IN_FLIGHT }, () =>
      fetch(`${url}/api/v1/members`, { headers: { authorization: `Bearer ${token}` } }).then(
        async (r) => ({ status: r.status, body: await r.text() }),
        (error: unknown) => ({ status: 0, body: String(error) }),
      ),
    );
  }

  describe('the gateway process on SIGTERM', () => {
    it('when requests are in flight, then every one is answered and it exits 0 in time', async () => {
      const gateway = await startGateway();
      const token = await tokenFrom(gateway.url);
      const locker = await lockTokens();
      const answers = holdRequests(gateway.url, token);
      await eventually(async () => expect(await waitersOnLock()).toBe(IN_FLIGHT), 10_000, 50);

      const signalledAt = Date.now();
      gateway.child.kill('SIGTERM');
      await gateway.waitForLine((l) => l.msg === 'stopping: finishing work in flight');
      // Stopped accepting: a new connection is refused while the held requests still run.
      await expect(fetch(`${gateway.url}/healthz`)).rejects.toThrow();

      await locker.query('COMMIT');
      await locker.end();
      const results = await Promise.all(answers);
      expect(results.map((r) => r.status)).toEqual(Array(IN_FLIGHT).fill(200));
      expect(await gateway.exited).toBe(0);
      expect(Date.now() - signalledAt).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    });

    it('when a second signal follows, then it exits at once without waiting', async () => {
      const gateway = await startGateway();
      const token = await tokenFrom(gateway.url);
      const locker = await lockTokens();
      try {
        const answers = holdRequests(gateway.url, token);
        await eventually(async () => expect(await waitersOnLock()).toBe(IN_FLIGHT), 10_000, 50);
        gateway.child.kill('SIGTERM');
        await gateway.waitForLine((l) => l.msg === 'stopping: finishing work in flight');
        const secondAt = Date.now();
        gateway.child.kill('SIGTERM');
        expect(await gateway.exited).toBe(1);
        expect(Date.now() - secondAt).toBeLessThan(1000);
        await Promise.all(answers);
      } finally {
        await locker.query('ROLLBACK');
        await locker.end();
      }
    });
  });
});
