// A table's worker that is alive but takes no job (after a Redis failover a BullMQ worker's
// blocking connection can stay stuck in its reconnect) is replaced by the worker's upkeep, and the
// table syncs again without a restart.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { eventually } from '../support/eventually.js';
import { startWorker } from '../support/worker.js';

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let worker: Awaited<ReturnType<typeof startWorker>>;

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  worker = await startWorker(env);
});

afterAll(async () => {
  await worker?.close();
  await dashboard?.close();
  await env?.destroy();
});

const synced = (id: number) => async () =>
  expect(await worker.readModel.branch.findUnique({ where: { id } })).not.toBeNull();

describe('a table worker that takes no job', () => {
  it('when the branches worker stops taking jobs, then it is replaced and a new branch arrives', async () => {
    await eventually(synced(await dashboard.insertBranch()), 20_000, 250);
    const wedged = worker.runner.workerOf('branches')!;
    // Alive and connected, taking nothing: what a worker stuck in its reconnect looks like.
    await wedged.pause(true);
    await sleep(2000); // a fetch already under way still runs the job it brings
    const branch = await dashboard.insertBranch();
    await sleep(3000);
    expect(await worker.readModel.branch.findUnique({ where: { id: branch } })).toBeNull();
    // Due at once, replaced past its grace (10 s) at the next check (every 5 s).
    await eventually(synced(branch), 30_000, 250);
    expect(worker.runner.workerOf('branches')).not.toBe(wedged);
  }, 60_000);
});
