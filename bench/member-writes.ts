// npm run bench -- --only member-writes [--seconds N --connections C]: latency of POST /members
// (legacy transaction, read-model publish, audit) at C concurrent clients, each creating members
// one after another, beside GET /members/{id} measured the same way in the same run. Creates run
// once with every client in its own branch and once with all in one branch (serialised on the
// branch's counter row). A throwaway environment on the configured servers, dropped at the end.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../common/config.js';
import { createReadModelClient } from '../common/databases.js';
import { createLogger } from '../common/logger.js';
import { createRedis } from '../common/redis.js';
import { createApp } from '../gateway/src/app.js';
import { createClient } from '../gateway/src/features/clients/clients.repository.js';
import { createGatewayLegacyClient } from '../gateway/src/features/members/members.legacy.js';
import { connectLegacy } from '../scripts/legacy/legacy-database.js';
import { createThrowawayEnvironment, serverUrlsOf } from '../scripts/throwaway-environment.js';

interface Options {
  seconds: number;
  connections: number;
}

let phoneSequence = 0;
const nextPhone = () => `05${String(300_000_000 + ++phoneSequence).padStart(9, '0')}`;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** `connections` loops calling `call` back to back for `seconds`; latencies in ms. */
async function loadOf(options: Options, call: (client: number) => Promise<Response>) {
  const latencies: number[] = [];
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
  const sorted = latencies.sort((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
}

const line = (name: string, r: { count: number; p50: number; p95: number }, seconds: number) =>
  `${name.padEnd(34)} ${(r.count / seconds).toFixed(0).padStart(5)} req/s  p50 ${r.p50.toFixed(1)} ms  p95 ${r.p95.toFixed(1)} ms\n`;

export async function benchMemberWrites(options: Options) {
  const env = await createThrowawayEnvironment(serverUrlsOf(loadConfig()), 'bench');
  const config = env.config({ LOG_LEVEL: 'warn' });
  const db = createReadModelClient(config.db.url, { poolSize: 10 });
  const legacy = createGatewayLegacyClient(env.legacyGatewayUrl);
  const redis = createRedis(config.redis.url);
  if (redis.status !== 'ready') await once(redis, 'ready');
  const logger = createLogger({ level: 'warn', name: 'bench' });
  const server: Server = await new Promise((resolve) => {
    const s = createApp({ config, db, redis, logger, legacy }).listen(0, '127.0.0.1', () =>
      resolve(s),
    );
  });
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
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
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

    await loadOf({ ...options, seconds: 1 }, (c) => create(branches[c]!)); // warm-up
    const own = await loadOf(options, (c) => create(branches[c]!));
    const shared = await loadOf(options, () => create(branches[0]!));
    const read = await loadOf(options, () => fetch(`${base}/members/1`, { headers }));
    process.stdout.write(
      `${options.connections} concurrent clients, ${options.seconds} s each (CPU-bound figures: noisy on a shared machine)\n` +
        line('POST /members, own branch each', own, options.seconds) +
        line('POST /members, all in one branch', shared, options.seconds) +
        line('GET /members/{id}', read, options.seconds),
    );
  } finally {
    await new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    redis.disconnect();
    await Promise.all([db.$disconnect(), legacy.$disconnect()]);
    await env.destroy();
  }
}
