// A gateway process counts in memory and flushes every USAGE_FLUSH_INTERVAL_MS (here 1 s): killed
// with SIGKILL mid-load it loses at most what it answered in its last interval; stopped with
// SIGTERM it loses nothing (docs/decisions/0015-usage-reports.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import { createRedis, type RedisClient } from '#common/redis.js';
import { mergeUsage } from '../../worker/src/usage/usage-merge.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { createTestClient, type TestClient } from '../support/gateway.js';
import { environmentVariables, startGatewayProcess } from '../support/processes.js';

const FLUSH_MS = 1000;
/** Room for the flush's own round trip and a busy machine's event loop. */
const SLACK_MS = 500;
const LOAD_MS = 3000;

let env: TestEnvironment;
let db: ReadModelClient;
let redis: RedisClient;

beforeAll(async () => {
  env = await createTestEnvironment();
  db = createReadModelClient(env.databaseUrl);
  redis = createRedis(env.redisUrl, { forWorker: true });
});

afterAll(async () => {
  redis?.disconnect();
  await db?.$disconnect();
  await env?.destroy();
});

async function tokenOf(url: string, client: TestClient): Promise<string> {
  const answer = await fetch(`${url}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_key: client.client_key, client_secret: client.client_secret }),
  });
  return ((await answer.json()) as { data: { access_token: string } }).data.access_token;
}

/** Four callers in a loop until `stop` says so; resolves with when each 200 arrived. */
async function load(url: string, token: string, stop: () => boolean): Promise<number[]> {
  const answeredAt: number[] = [];
  const caller = async () => {
    while (!stop()) {
      try {
        const answer = await fetch(`${url}/api/v1/members?limit=1`, {
          headers: { authorization: `Bearer ${token}` },
        });
        await answer.arrayBuffer();
        if (answer.status === 200) answeredAt.push(Date.now());
      } catch {
        return; // the gateway is gone
      }
    }
  };
  await Promise.all([caller(), caller(), caller(), caller()]);
  return answeredAt;
}

async function counted(clientId: number): Promise<number> {
  await mergeUsage({ readModel: db, redis, prefix: env.redisPrefix });
  const [row] = await db.$queryRaw<{ n: number }[]>`
    SELECT coalesce(sum(requests), 0)::float8 AS n FROM usage_hours
     WHERE client_id = ${clientId} AND operation = 'GET /api/v1/members'`;
  return row?.n ?? 0;
}

async function run(signal: 'SIGKILL' | 'SIGTERM') {
  const client = await createTestClient(db, {
    limits: { minute: 1_000_000, hour: 1_000_000, day: 1_000_000 },
  });
  const gateway = await startGatewayProcess({
    ...environmentVariables(env),
    USAGE_FLUSH_INTERVAL_MS: String(FLUSH_MS),
  });
  const token = await tokenOf(gateway.url, client);
  let stopped = false;
  const loading = load(gateway.url, token, () => stopped);
  await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
  const signalledAt = Date.now();
  gateway.child.kill(signal);
  if (signal === 'SIGTERM') stopped = true;
  const answeredAt = await loading;
  stopped = true;
  await gateway.exited;
  return { answeredAt, signalledAt, counted: await counted(client.id) };
}

describe('a gateway process that stops', () => {
  it('when killed with SIGKILL mid-load, then only its last flush interval of counts is lost', async () => {
    const { answeredAt, signalledAt, counted: n } = await run('SIGKILL');
    const answered = answeredAt.length;
    const flushedSurely = answeredAt.filter((t) => t < signalledAt - FLUSH_MS - SLACK_MS).length;
    const lost = answered - n;
    // What the last interval held: the answers after the last flush that surely ended.
    expect(flushedSurely).toBeGreaterThan(0);
    expect(n).toBeLessThanOrEqual(answered);
    expect(n).toBeGreaterThanOrEqual(flushedSurely);
    expect(lost).toBeLessThanOrEqual(answered - flushedSurely);
  });

  it('when stopped with SIGTERM, then every answered request is counted', async () => {
    const { answeredAt, counted: n } = await run('SIGTERM');
    expect(answeredAt.length).toBeGreaterThan(0);
    expect(n).toBe(answeredAt.length);
  });
});
