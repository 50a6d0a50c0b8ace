// Fair delivery for a slow endpoint: one partner's endpoint answers every try, but only after 8 s,
// while 300 of its events are replayed. Its tries hold its share of the worker's places and no
// more: a try beyond the share is queued again, not parked in a place another partner's event
// needs. Another partner's changes arrive as they would alone (about a second), and the slow
// partner's events keep being delivered.
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

// The worker's defaults otherwise: a 15 s time-out, 100 tries at once, 10 per subscription.
const WEBHOOK_SETTINGS = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
const SHARE = 10;
const A_ANSWERS_AFTER_MS = 8000;
const A_REPLAYED = 300;
const B_CHANGES = 10;
const B_PACE_MS = 1000;
/** Alone, B's change arrives within about a second; behind A's replay, after a minute or more. */
const BOUND_MS = 5000;

let env: TestEnvironment;
let gateway: RunningGateway;
let worker: Awaited<ReturnType<typeof startWebhookWorker>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let readModel: ReturnType<typeof createReadModelClient>;
let tokenA: string;
let tokenB: string;
/** A's tries open at once, and the most ever open. */
let openA = 0;
let mostOpenA = 0;

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  await generateLegacyData(dashboard.conn, { scale: 1, seed: 21 });
  await dashboard.close();
  await syncOnce(env);
  gateway = await startGateway(env, { RATE_LIMIT_PER_MINUTE: '100000', ...WEBHOOK_SETTINGS });
  tokenA = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: ['members:read', 'webhooks:manage'] }),
  );
  tokenB = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: ['notifications:read', 'webhooks:manage'] }),
  );
  receiver = await startReceiver({ secrets: new Map() });
  receiver.answerWith((request) => {
    if (!request.path.startsWith('/a')) return { status: 204 };
    openA += 1;
    mostOpenA = Math.max(mostOpenA, openA);
    setTimeout(() => (openA -= 1), A_ANSWERS_AFTER_MS);
    return { status: 204, delayMs: A_ANSWERS_AFTER_MS };
  });
  readModel = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  worker = await startWebhookWorker(env, WEBHOOK_SETTINGS);
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await receiver?.close();
  await gateway?.close();
  await readModel?.$disconnect();
  await env?.destroy();
});

async function subscribe(token: string, url: string, types: string[]): Promise<number> {
  const answer = await postJson(
    `${gateway.url}/api/v1/webhooks`,
    { url, types },
    bearer(token).headers,
  );
  expect(answer.status).toBe(201);
  return answer.body.data.id as number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** B's changes, one every B_PACE_MS: each one's time from commit to arrival at B's endpoint. */
async function timeChangesOfB(ids: number[]): Promise<number[]> {
  const pool = readModelPool(readModel);
  const committed = new Map<string, number>();
  for (const id of ids) {
    const title = `beside-slow-${id}`;
    await pool.query('UPDATE notifications SET title = $1 WHERE id = $2', [title, id]);
    committed.set(title, Date.now());
    await sleep(B_PACE_MS);
  }
  const arrivals = await eventually(
    () => {
      const arrived = new Map<string, number>();
      for (const r of receiver.received.filter((received) => received.path === '/b')) {
        const title = (r.parsed.data as { data: { title?: string } | null }).data?.title ?? '';
        if (committed.has(title) && !arrived.has(title)) arrived.set(title, r.at);
      }
      expect(arrived.size).toBe(ids.length);
      return arrived;
    },
    180_000,
    200,
  );
  return [...committed].map(([title, at]) => arrivals.get(title)! - at).sort((a, b) => a - b);
}

describe('one partner slow, another partner answering', () => {
  it("when A's endpoint answers every try after 8 s and A replays 300 events, then B's changes arrive within 5 s and A's keep arriving", async () => {
    await subscribe(tokenB, receiver.url('/b'), ['notifications']);
    const a = await subscribe(tokenA, receiver.url('/a'), ['members']);
    // 300 events A's endpoint had received, replayed.
    const recorded = new Date(Date.now() - 60_000);
    await gateway.db.webhookEvent.createMany({
      data: Array.from({ length: A_REPLAYED }, (_, n) => ({
        subscription_id: a,
        event_type: 'members.upsert',
        body: JSON.stringify({ type: 'members.upsert', n }),
        changed_at: recorded,
        created_at: recorded,
        status: 'delivered',
        attempts: 1,
      })),
    });
    const replayed = await postJson(
      `${gateway.url}/api/v1/webhooks/${a}/replay`,
      { since: new Date(recorded.getTime() - 1000).toISOString() },
      bearer(tokenA).headers,
    );
    expect([replayed.status, replayed.body.data]).toEqual([202, { replayed: A_REPLAYED }]);
    const triedA = () => receiver.received.filter((r) => r.path === '/a').length;
    await eventually(() => expect(triedA()).toBeGreaterThan(0), 30_000);

    const { rows } = await readModelPool(readModel).query<{ id: number }>(
      'SELECT id FROM notifications ORDER BY id LIMIT $1',
      [B_CHANGES],
    );
    const besideA = await timeChangesOfB(rows.map((row) => row.id));
    const triedWhileB = triedA();

    console.log(
      `B's change → delivery beside A's slow endpoint (${A_REPLAYED} replayed, each answered after ` +
        `${A_ANSWERS_AFTER_MS} ms): ${besideA.join(', ')} ms; A's tries meanwhile ${triedWhileB}, ` +
        `at most ${mostOpenA} open`,
    );
    expect(besideA.filter((ms) => ms > BOUND_MS)).toEqual([]);
    // A holds its share and no more, and keeps being delivered at its pace.
    expect(mostOpenA).toBeLessThanOrEqual(SHARE);
    await eventually(() => expect(triedA()).toBeGreaterThanOrEqual(triedWhileB + SHARE), 30_000);
  }, 300_000);
});
