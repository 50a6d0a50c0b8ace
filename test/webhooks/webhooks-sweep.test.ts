// The sweep queues again what the queue lost, not what waits its turn: behind a backlog, an
// event whose job is still waiting is not copied (each copy is a job and a read of its own, where
// a page's first tries share one job of 50, and slows the backlog further). Events whose jobs
// Redis did lose are still queued again (test/webhooks/webhooks-faults.test.ts). And a delivery worker that
// is alive but takes no job (after a Redis failover a BullMQ worker's blocking connection can stay
// stuck in its reconnect) is replaced at the sweep, without a restart.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelClient, readModelPool } from '#common/databases.js';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  bearer,
  createTestClient,
  issueToken,
  postJson,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { syncOnce } from '../support/sync-once.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { startWebhookWorker } from '../support/worker.js';

// Two tries at once, each answered after 100 ms: 20 a second. The last of 400 events waits about
// 20 s in a job still queued, well past the sweep's 10 s (api/webhooks/overdue.ts).
const SETTINGS = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CONCURRENCY: '2' };
const EVENTS = 400;
const ANSWER_MS = 100;

let env: TestEnvironment;
let gateway: RunningGateway;
let worker: Awaited<ReturnType<typeof startWebhookWorker>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let readModel: ReturnType<typeof createReadModelClient>;
let token: string;

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  await generateLegacyData(dashboard.conn, { scale: 2, seed: 21 });
  await dashboard.close();
  await syncOnce(env);
  gateway = await startGateway(env, SETTINGS);
  token = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: ['members:read', 'webhooks:manage'] }),
  );
  receiver = await startReceiver({ secrets: new Map() });
  receiver.answerWith(() => ({ status: 204, delayMs: ANSWER_MS }));
  readModel = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  worker = await startWebhookWorker(env, SETTINGS);
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await receiver?.close();
  await gateway?.close();
  await readModel?.$disconnect();
  await env?.destroy();
});

async function requeued(): Promise<number> {
  const metric = await worker.registry.getSingleMetric('webhook_sweep_requeued_total')?.get();
  return metric?.values[0]?.value ?? NaN;
}

describe('the sweep behind a backlog', () => {
  it('when 400 events wait behind a slow partner for longer than the sweep grace, then none is queued a second time', async () => {
    const answer = await postJson(
      `${gateway.url}/api/v1/webhooks`,
      { url: receiver.url('/slow'), types: ['members'] },
      bearer(token).headers,
    );
    expect(answer.status).toBe(201);
    const started = Date.now();
    const changed = await readModelPool(readModel).query(
      `UPDATE members SET address = 'backlog-' || id
        WHERE id IN (SELECT id FROM members ORDER BY id LIMIT $1)`,
      [EVENTS],
    );
    expect(changed.rowCount).toBe(EVENTS);
    await eventually(
      () => expect(new Set(receiver.received.map((r) => r.id)).size).toBe(EVENTS),
      90_000,
      500,
    );
    const seconds = (Date.now() - started) / 1000;
    console.log(`${EVENTS} events delivered in ${seconds.toFixed(1)} s; swept ${await requeued()}`);
    // The backlog outlasted the grace, so the sweep did look at overdue events while jobs waited.
    expect(seconds).toBeGreaterThan(15);
    expect(await requeued()).toBe(0);
    expect(receiver.received).toHaveLength(EVENTS);
  }, 120_000);
});

/** A member's change, marked; then whether its event has arrived. */
async function change(marker: string) {
  await readModelPool(readModel).query(
    `UPDATE members SET address = $1 WHERE id = (SELECT min(id) FROM members)`,
    [marker],
  );
  return () => receiver.received.some((r) => r.body.includes(marker));
}

describe('a delivery worker that takes no job', () => {
  it('when the delivery worker stops taking jobs, then the sweep replaces it and the waiting event arrives', async () => {
    const before = await change('untaken-before');
    await eventually(() => expect(before()).toBe(true), 20_000, 100);
    const wedged = worker.deliveryWorker();
    // Alive and connected, taking nothing: what a worker stuck in its reconnect looks like.
    await wedged.pause(true);
    // A fetch already under way (it blocks for up to BullMQ's drain delay, 5 s) still runs the
    // job it brings.
    await sleep(6000);
    const after = await change('untaken-after');
    await sleep(3000);
    expect(after()).toBe(false);
    // Due at once; replaced once it has waited 10 s, at two sweeps running (every 2 s).
    await eventually(() => expect(after()).toBe(true), 30_000, 250);
    expect(worker.deliveryWorker()).not.toBe(wedged);
  }, 90_000);
});
