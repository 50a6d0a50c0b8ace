// The product on a Redis Cluster (3 masters, one replica each, started by the test from the
// Debian binaries): exact limits and usage counts over two gateways, revocation seen by the other
// instance, idempotent creates, the worker's sync; then a master SIGKILLed, its replica promoted, and
// everything serving again within 15 s with no member write lost.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epochKey } from '../../gateway/src/trust/client-epochs.js';
import { createRedis } from '#common/redis.js';
import { mergeUsage } from '../../worker/src/usage/usage-merge.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  postJson,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { memberApi, randomPhone } from '../support/member-writes.js';
import { RedisClusterServers } from '../support/redis-cluster.js';
import { verifyEnvironment } from '../support/verify.js';
import { eventually } from '../support/eventually.js';
import { startWorker } from '../support/worker.js';

let cluster: RedisClusterServers;
let env: TestEnvironment;
let gateways: RunningGateway[];
let dashboard: LegacyDashboard;
let worker: Awaited<ReturnType<typeof startWorker>> | undefined;

beforeAll(async () => {
  cluster = await RedisClusterServers.start();
  env = await createTestEnvironment({ redisUrl: cluster.url });
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  gateways = [await startGateway(env), await startGateway(env)];
  worker = await startWorker(env);
}, 60_000);

afterAll(async () => {
  await worker?.close();
  await Promise.all((gateways ?? []).map((g) => g.close()));
  await dashboard?.close();
  await env?.destroy();
  await cluster?.destroy();
});

const membersOf = (gateway: RunningGateway, token: string) =>
  getJson(`${gateway.url}/api/v1/members?limit=1`, bearer(token));

describe('on a Redis Cluster', () => {
  it('when 200 requests of one client arrive at once over two gateways, then exactly 60 pass', async () => {
    const client = await createTestClient(gateways[0]!.db);
    const token = await issueToken(gateways[0]!, client);
    const statuses = (
      await Promise.all(Array.from({ length: 200 }, (_, i) => membersOf(gateways[i % 2]!, token)))
    ).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(140);
  });

  it('when requests go through both gateways, then their usage is flushed and merged exactly once', async () => {
    const client = await createTestClient(gateways[0]!.db);
    const token = await issueToken(gateways[0]!, client);
    for (let i = 0; i < 10; i++)
      expect((await membersOf(gateways[i % 2]!, token)).status).toBe(200);
    await Promise.all(gateways.map((gateway) => gateway.usage.flush()));
    const redis = createRedis(env.redisUrl, { forWorker: true });
    try {
      const merge = () =>
        mergeUsage({ readModel: gateways[0]!.db, redis, prefix: env.redisPrefix });
      await Promise.all([merge(), merge()]);
    } finally {
      redis.disconnect();
    }
    const rows = await gateways[0]!.db.usageHour.findMany({ where: { client_id: client.id } });
    const count = (operation: string) =>
      rows.filter((r) => r.operation === operation).reduce((n, r) => n + Number(r.requests), 0);
    expect(count('GET /api/v1/members')).toBe(10);
    expect(count('POST /api/v1/auth/token')).toBe(1);
  });

  it('when a token is revoked through one gateway, then the other refuses it', async () => {
    const client = await createTestClient(gateways[0]!.db);
    const token = await issueToken(gateways[0]!, client);
    expect((await membersOf(gateways[1]!, token)).status).toBe(200);
    const revoked = await postJson(
      `${gateways[0]!.url}/api/v1/auth/revoke`,
      { token_type: 'current' },
      bearer(token).headers,
    );
    expect(revoked.status).toBe(200);
    expect((await membersOf(gateways[1]!, token)).status).toBe(401);
  });

  it('when a create is sent twice with one Idempotency-Key through both gateways, then one member is written', async () => {
    const client = await createTestClient(gateways[0]!.db, { scopes: ['members:write'] });
    const token = await issueToken(gateways[0]!, client);
    const branch = await dashboard.insertBranch();
    const body = { full_name: 'Küme', phone: randomPhone(), branch_id: branch };
    const key = { 'idempotency-key': `cl-${randomPhone()}` };
    const first = await memberApi(gateways[0]!.url, token).create(body, key);
    const replay = await memberApi(gateways[1]!.url, token).create(body, key);
    expect(first.status).toBe(201);
    expect([replay.status, replay.body]).toEqual([201, first.body]);
    const [row] = await dashboard.conn.query<{ n: bigint }[]>(
      'SELECT COUNT(*) AS n FROM members WHERE branch_id = ?',
      [branch],
    );
    expect(Number(row?.n)).toBe(1);
  });

  it('when legacy rows are written, then the worker brings them and sync:verify finds nothing', async () => {
    const branch = await dashboard.insertBranch();
    for (let i = 0; i < 5; i++) await dashboard.insertMember({ branch_id: branch });
    await eventually(
      async () => expect((await verifyEnvironment(env)).reports).toEqual([]),
      20_000,
      250,
    );
  });

  it('when the master holding a client is SIGKILLed, then within 15 s the gateway serves and the worker syncs again, with no write lost', async () => {
    const client = await createTestClient(gateways[0]!.db, {
      scopes: ['members:write', 'members:read', 'members:list'],
      limits: { minute: 100_000, hour: 100_000, day: 100_000 },
    });
    const token = await issueToken(gateways[0]!, client);
    const apis = gateways.map((g) => memberApi(g.url, token));
    const branch = await dashboard.insertBranch();

    // Member writes go on through the whole failover, alternating between the gateways.
    const accepted: number[] = [];
    const statuses: number[] = [];
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const answer = await apis[i % 2]!.create({
          full_name: `Yazım ${i}`,
          phone: randomPhone(),
          branch_id: branch,
        });
        statuses.push(answer.status);
        if (answer.status === 201) accepted.push(answer.body.data.id as number);
        await sleep(50);
      }
    })();

    await sleep(500);
    const victim = await cluster.masterOf(epochKey(env.redisPrefix, client.id));
    const acceptedBeforeKill = accepted.length;
    await cluster.killMaster(victim);
    const killedAt = Date.now();

    // The gateway serves this client again (its keys' slot has a new master).
    await eventually(
      async () => expect((await membersOf(gateways[1]!, token)).status).toBe(200),
      15_000,
      100,
    );
    const servedAfterMs = Date.now() - killedAt;
    // The worker syncs again: a member written in legacy now reaches the read model.
    const fresh = await dashboard.insertMember({ branch_id: branch });
    await eventually(
      async () => expect((await apis[0]!.get(fresh)).status).toBe(200),
      15_000 - (Date.now() - killedAt),
      100,
    );
    await cluster.waitForFailover(victim);
    await sleep(1000);
    writing = false;
    await writer;
    // Writes go on after the failover through either gateway (how many the loop managed depends
    // on the machine's speed; these two do not).
    for (const api of apis) {
      const answer = await api.create({
        full_name: 'Sonra',
        phone: randomPhone(),
        branch_id: branch,
      });
      expect(answer.status).toBe(201);
      accepted.push(answer.body.data.id as number);
    }

    expect(servedAfterMs).toBeLessThan(15_000);
    // A write was refused (503) or accepted, never a 500; every accepted one is in legacy and,
    // after the worker, in the read model with nothing else to repair.
    expect(statuses.filter((s) => s !== 201 && s !== 503)).toEqual([]);
    expect(acceptedBeforeKill).toBeGreaterThan(0);
    for (const id of accepted) expect((await apis[1]!.get(id)).status).toBe(200);
    await eventually(
      async () => expect((await verifyEnvironment(env)).reports).toEqual([]),
      20_000,
      250,
    );
  }, 60_000);
});
