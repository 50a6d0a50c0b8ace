// The gateway's reads on a PostgreSQL streaming replica (a primary and a pg_basebackup -R
// replica started by the test): reads land on the replica, its lag shows in X-Data-Age and past
// READ_REPLICA_MAX_LAG_MS moves reads to the primary, a client reads its own writes at once, and
// a stopped replica costs no 5xx.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { memberApi, randomPhone, type MemberApi } from '../support/member-writes.js';
import { PrimaryWithReplica } from '../support/pg-replica.js';
import { eventually } from '../support/eventually.js';
import { startWorker } from '../support/worker.js';

const MAX_LAG_MS = 2000;
/** The most X-Data-Age a read of an up-to-date database can show here, in whole seconds. */
const FRESH_S = 2;

let servers: PrimaryWithReplica;
let env: TestEnvironment;
let database: string;
let gateway: RunningGateway;
let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
let dashboard: LegacyDashboard;
let token: string;
let api: MemberApi;
let branch: number;

beforeAll(async () => {
  servers = await PrimaryWithReplica.start();
  env = await createTestEnvironment({ postgresUrl: servers.primaryUrl });
  database = new URL(env.databaseUrl).pathname.slice(1);
  const replicaUrl = new URL(servers.replicaUrl);
  replicaUrl.pathname = `/${database}`;
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  branch = await dashboard.insertBranch();
  for (let i = 0; i < 3; i++) await dashboard.insertMember({ branch_id: branch });
  worker = await startWorker(env, { intervalMs: 200 });
  gateway = await startGateway(env, {
    DATABASE_READ_URLS: replicaUrl.toString(),
    READ_REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
  });
  const client = await createTestClient(gateway.db, {
    scopes: ['members:list', 'members:read', 'members:write'],
    limits: { minute: 100_000, hour: 100_000, day: 100_000 },
  });
  token = await issueToken(gateway, client);
  api = memberApi(gateway.url, token);
  await servers.waitForReplay();
  // The first probes have found the replica.
  await eventually(async () => expect(await replicaReadsDuring(list)).toBeGreaterThan(0), 10_000);
}, 60_000);

afterAll(async () => {
  await worker?.close();
  await gateway?.close();
  await dashboard?.close();
  await env?.destroy();
  await servers?.destroy();
});

const list = () => getJson(`${gateway.url}/api/v1/members?limit=5`, bearer(token));

/** Statements the replica ran in the test's database while `work` ran. */
async function replicaReadsDuring(work: () => Promise<unknown>): Promise<number> {
  const before = await servers.replicaReads(database);
  await work();
  return (await servers.replicaReads(database)) - before;
}

describe('with a read replica', () => {
  it('when members are listed, then the replica answers', async () => {
    const reads = await replicaReadsDuring(async () => {
      for (let i = 0; i < 20; i++) expect((await list()).status).toBe(200);
    });
    // Each list is one statement (its page and total), besides the probes.
    expect(reads).toBeGreaterThanOrEqual(20);
  });

  it('when replay is paused, then X-Data-Age grows with the lag and past the bound reads move to the primary', async () => {
    await servers.pauseReplay();
    try {
      // Fresh up to the sync's own age: the worker's last pass (200 ms apart, longer on a busy
      // machine) as the gateway last read it (once a second). The paused replica adds nothing yet.
      const atPause = Number((await list()).headers.get('x-data-age'));
      expect(atPause).toBeLessThanOrEqual(FRESH_S);
      // Under the bound: still the replica, and the header says how far behind it is.
      await sleep(MAX_LAG_MS - 600);
      const behind = await list();
      expect(Number(behind.headers.get('x-data-age'))).toBeGreaterThanOrEqual(1);
      // Past it: the primary answers, as fresh as the worker keeps it.
      await sleep(1500);
      const reads = await replicaReadsDuring(async () => {
        for (let i = 0; i < 10; i++) {
          const answer = await list();
          expect(answer.status).toBe(200);
          // A fresh answer; that it is the primary's, the statement count below tells.
          expect(Number(answer.headers.get('x-data-age'))).toBeLessThanOrEqual(FRESH_S);
        }
      });
      // Only the probe's statements, never the 20 of the lists.
      expect(reads).toBeLessThan(20);
    } finally {
      await servers.resumeReplay();
    }
    await servers.waitForReplay();
    await eventually(async () => expect(await replicaReadsDuring(list)).toBeGreaterThan(0), 5000);
  });

  it('when a client reads the member it just created, then it finds it on every one of 100 tries', async () => {
    const misses: number[] = [];
    let onReplica = 0;
    for (let i = 0; i < 100; i++) {
      const created = await api.create({
        full_name: `Okuma ${i}`,
        phone: randomPhone(),
        branch_id: branch,
      });
      expect(created.status).toBe(201);
      const id = created.body.data.id as number;
      onReplica += await replicaReadsDuring(async () => {
        const read = await api.get(id);
        if (read.status !== 200) misses.push(id);
      });
    }
    expect(misses).toEqual([]);
    // The replica did answer some of them: the test exercised it, not only the primary.
    expect(onReplica).toBeGreaterThan(0);
  }, 60_000);

  it('when the replica stops, then reads are answered by the primary without a single 5xx', async () => {
    await servers.stopReplica();
    try {
      const statuses = (await Promise.all(Array.from({ length: 50 }, () => list()))).map(
        (r) => r.status,
      );
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      for (let i = 0; i < 20; i++) expect((await list()).status).toBe(200);
    } finally {
      await servers.startReplica();
    }
    await eventually(async () => expect(await replicaReadsDuring(list)).toBeGreaterThan(0), 10_000);
  });
});
