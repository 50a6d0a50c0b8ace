// Three worker processes on one data set share the tables through the queues (one run of a table
// at a time, whichever process takes it); one SIGKILLed in the middle of the first load hands its
// table over once its job lock runs out, and the survivors finish with nothing to repair.
import { hostname } from 'node:os';
import { Queue, type Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import { createRedis, type RedisClient } from '#common/redis.js';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import { QUEUE_STREAMS, syncQueueName, type TableJobData } from '../../worker/src/queues.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { environmentVariables, startProcess, type RunningProcess } from '../support/processes.js';
import { verifyEnvironment } from '../support/verify.js';
import { eventually } from '../support/eventually.js';

const SYNC_INTERVAL_MS = 500;

let env: TestEnvironment;
let redis: RedisClient;
let readModel: ReadModelClient;
let legacyMembers: number;
let queues: Map<string, Queue<TableJobData>>;
const workers: RunningProcess[] = [];

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  // Large enough that the members' first load takes several runs' worth of batches.
  await generateLegacyData(dashboard.conn, { scale: 40, seed: 11 });
  const [row] = await dashboard.conn.query<{ n: bigint }[]>('SELECT COUNT(*) AS n FROM members');
  legacyMembers = Number(row?.n);
  await dashboard.close();
  readModel = createReadModelClient(env.databaseUrl, { poolSize: 1 });
  redis = createRedis(env.redisUrl, { forWorker: true });
  queues = new Map(
    SYNC_TABLES.map((t) => [
      t.name,
      new Queue<TableJobData>(syncQueueName(t.name), {
        connection: redis,
        prefix: env.redisPrefix,
        streams: QUEUE_STREAMS,
      }),
    ]),
  );
}, 120_000);

afterAll(async () => {
  for (const worker of workers) worker.kill();
  await Promise.all([...(queues?.values() ?? [])].map((q) => q.close()));
  redis?.disconnect();
  await readModel?.$disconnect();
  await env?.destroy();
});

const nameOf = (worker: RunningProcess) => `${hostname()}:${worker.child.pid}`;

async function jobsOf(table: string, states: ('active' | 'completed')[]): Promise<Job[]> {
  return (await queues.get(table)?.getJobs(states, 0, -1)) ?? [];
}

describe('three workers on one data set', () => {
  it('when one is SIGKILLed mid-load, then the others take its table over and finish', async () => {
    const variables = {
      ...environmentVariables(env),
      WORKER_ROLES: 'sync',
      SYNC_INTERVAL_MS: String(SYNC_INTERVAL_MS),
    };
    for (let i = 0; i < 3; i++) workers.push(startProcess('worker', variables));
    await Promise.all(
      workers.map((w) => w.waitForLine((line) => line.msg === 'sync worker started')),
    );

    // The victim: whichever process runs the members' load right now.
    const running = await eventually(
      async () => {
        const [job] = await jobsOf('members', ['active']);
        const victim = workers.find((w) => job?.processedBy === nameOf(w));
        if (!victim) throw new Error('members not being loaded yet');
        return victim;
      },
      60_000,
      20,
    );
    running.child.kill('SIGKILL');
    const killedAt = Date.now();
    await running.exited;
    // Killed in the middle of the load, not after it.
    const loaded = await readModel.member.count();
    expect(loaded).toBeLessThan(legacyMembers);
    const survivors = workers.filter((w) => w !== running);

    // Nothing is left to repair once the survivors are done.
    await eventually(
      async () => expect((await verifyEnvironment(env)).reports).toEqual([]),
      90_000,
      500,
    );

    // Its table went to a survivor within 10 s of the table's next due run.
    const later = (await jobsOf('members', ['completed'])).filter(
      (job) => (job.processedOn ?? 0) > killedAt,
    );
    const takenOver = later
      .filter((job) => survivors.some((w) => job.processedBy === nameOf(w)))
      .sort((a, b) => (a.processedOn ?? 0) - (b.processedOn ?? 0))[0];
    expect(takenOver).toBeDefined();
    expect((takenOver?.processedOn ?? Infinity) - killedAt).toBeLessThanOrEqual(
      10_000 + SYNC_INTERVAL_MS,
    );

    // The tables were spread over the processes: the victim held the members' load, and each
    // survivor took runs of several tables.
    const byWorker = new Map<string, Set<string>>();
    for (const table of SYNC_TABLES) {
      for (const job of await jobsOf(table.name, ['completed'])) {
        const tables = byWorker.get(job.processedBy ?? '') ?? new Set<string>();
        tables.add(table.name);
        byWorker.set(job.processedBy ?? '', tables);
      }
    }
    for (const worker of survivors) {
      expect(byWorker.get(nameOf(worker))?.size ?? 0, nameOf(worker)).toBeGreaterThan(1);
    }

    // The survivors stop cleanly; nothing they ran was left half-done.
    for (const worker of survivors) worker.child.kill('SIGTERM');
    expect(await Promise.all(survivors.map((w) => w.exited))).toEqual([0, 0]);
  }, 180_000);
});
