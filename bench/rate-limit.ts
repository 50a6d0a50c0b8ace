// npm run bench -- --only rate-limit [--seconds N --connections C]: throughput of one cheap protected endpoint
// (GET /api/v1/members/:id) on two instances of the gateway in this process, one with the
// per-client rate limits and one built without them (createApp's `rateLimits: false`), and the
// ratio. A throwaway environment on the configured servers, dropped at the end; loopback only.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { loadConfig, type Config } from '../common/config.js';
import { createReadModelClient, type ReadModelClient } from '../common/databases.js';
import { createLogger } from '../common/logger.js';
import { createRedis } from '../common/redis.js';
import { createApp } from '../gateway/src/app.js';
import { createClient } from '../gateway/src/features/clients/clients.repository.js';
import { createThrowawayEnvironment, serverUrlsOf } from '../scripts/throwaway-environment.js';

let SECONDS = 10;
let CONNECTIONS = 10;
const MEMBER_ID = 1;
const ROUNDS = 5;

async function seedMember(db: ReadModelClient) {
  const now = new Date();
  await db.member.create({
    data: {
      id: MEMBER_ID,
      full_name: 'Bench',
      surname: 'Üye',
      phone: '05320000000',
      member_no: 'B-1',
      branch_id: 1,
      branch_name: 'Merkez',
      entry_status: false,
      balance: '0',
      freeze_status: false,
      status: 'Aktif',
      registered_at: now,
      qr_code: 'bench',
      created_at: now,
      updated_at: now,
      search_text: 'bench uye',
      phone_digits: '05320000000',
    },
  });
}

async function listen(app: ReturnType<typeof createApp>): Promise<Server> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function issueToken(baseUrl: string, client: { client_key: string; client_secret: string }) {
  const response = await fetch(`${baseUrl}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_key: client.client_key, client_secret: client.client_secret }),
  });
  const body = (await response.json()) as { data?: { access_token?: string } };
  if (!response.ok || !body.data?.access_token) throw new Error(`token: ${response.status}`);
  return body.data.access_token;
}

async function measure(url: string, token: string, seconds: number) {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
  });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  return result;
}

async function bench(config: Config, db: ReadModelClient) {
  const redis = createRedis(config.redis.url);
  // The client fails fast while connecting; measuring before it is ready would measure fail-open.
  if (redis.status !== 'ready') await once(redis, 'ready');
  const logger = createLogger({ level: 'warn', name: 'bench' });
  const deps = { config, db, redis, logger };
  const limited = await listen(createApp(deps));
  const unlimited = await listen(createApp(deps, { rateLimits: false }));
  try {
    await seedMember(db);
    // Limits far above what the run can send: every request takes the limiter's full path
    // (three counters in Redis) and none is refused.
    const client = await createClient(db, {
      name: 'bench',
      scopes: ['members:read'],
      branchId: null,
      limits: { minute: 1e9, hour: 1e9, day: 1e9 },
    });
    const token = await issueToken(urlOf(limited), client);
    const path = `/api/v1/members/${MEMBER_ID}`;
    const variants = [
      { name: 'without limiter', url: `${urlOf(unlimited)}${path}`, requests: 0, seconds: 0 },
      { name: 'with limiter', url: `${urlOf(limited)}${path}`, requests: 0, seconds: 0 },
    ];
    for (const v of variants) await measure(v.url, token, 2); // warm-up, not counted
    // Short alternating rounds, so other load on the machine during the run hits both alike.
    for (let round = 0; round < ROUNDS; round++) {
      for (const v of variants) {
        const result = await measure(v.url, token, SECONDS / ROUNDS);
        v.requests += result['2xx'];
        v.seconds += result.duration;
        process.stdout.write(
          `${v.name.padEnd(16)} round ${round + 1}: ${(result['2xx'] / result.duration).toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms\n`,
        );
      }
    }
    const [without, withLimiter] = variants.map((v) => v.requests / v.seconds) as [number, number];
    process.stdout.write(
      `\nGET ${path}, ${CONNECTIONS} connections, ${SECONDS} s each\n` +
        `without limiter: ${without.toFixed(0)} req/s\n` +
        `with limiter:    ${withLimiter.toFixed(0)} req/s\n` +
        `ratio (with / without): ${(withLimiter / without).toFixed(3)}\n`,
    );
    // autocannon closes its sockets at the deadline; requests already inside the gateway still
    // run, and must not meet a dropped database or a closed Redis client.
    await sleep(1000);
  } finally {
    await Promise.all([limited, unlimited].map((s) => new Promise((r) => s.close(r))));
    limited.closeAllConnections();
    unlimited.closeAllConnections();
    redis.disconnect();
  }
}

export async function benchRateLimit(options: { seconds: number; connections: number }) {
  SECONDS = options.seconds;
  CONNECTIONS = options.connections;
  const env = await createThrowawayEnvironment(serverUrlsOf(loadConfig()), 'bench');
  const config = env.config({ LOG_LEVEL: 'warn' });
  const db = createReadModelClient(config.db.url, { poolSize: 10 });
  try {
    await bench(config, db);
  } finally {
    await db.$disconnect();
    await env.destroy();
  }
}
