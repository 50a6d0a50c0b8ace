// A member's erasure when things fail (docs/decisions/0023-data-classes.md, "Erasure"), on a
// private MariaDB the test stops: with the dashboard's database down the erasure fails saying so
// and changes nothing anyone reads, and run again once it is back it completes; with the webhook
// worker down at erase time the recipient is still told once a worker is back; two erasures of
// one member at once tell each recipient once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { operatorCli } from '../support/operator-cli.js';
import { NO_RATE_LIMIT } from '../support/read-fixture.js';
import { SpareMariaDb } from '../support/spare-mariadb.js';
import { syncOnce } from '../support/sync-once.js';
import { LOCAL_WEBHOOKS, startReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { startWebhookWorker } from '../support/worker.js';

let server: SpareMariaDb;
let env: TestEnvironment;
let dashboard: LegacyDashboard;
let gateway: RunningGateway;
let worker: Awaited<ReturnType<typeof startWebhookWorker>> | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const secrets = new Map<string, string>();
let partner: { key: string; token: string };
let branch: number;

const erase = (id: number) =>
  operatorCli(env, 'members', 'erase', String(id), '--reason', 'KVKK', '--json').then(
    (out) => JSON.parse(out) as { notified: string[] },
    (error: { code: number; stderr: string }) => error,
  );
const erasuresOf = (id: number) =>
  receiver.received.filter(
    (r) =>
      (r.parsed as { type: string }).type === 'members.erase' &&
      (r.parsed as { data: { id: number } }).data.id === id,
  );

/** A member the partner has read: one of its recipients. */
async function readMember(): Promise<number> {
  const id = await dashboard.insertMember({ branch_id: branch, full_name: 'Deneme Üye' });
  await syncOnce(env);
  const read = await getJson(`${gateway.url}/api/v1/members/${id}`, bearer(partner.token));
  expect(read.status).toBe(200);
  return id;
}

beforeAll(async () => {
  server = await SpareMariaDb.start();
  env = await createTestEnvironment({ mariadb: server });
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  branch = await dashboard.insertBranch({ name: 'Moda' });
  await syncOnce(env);
  gateway = await startGateway(env, { ...NO_RATE_LIMIT, ...LOCAL_WEBHOOKS });
  const made = await createTestClient(gateway.db, {
    scopes: ['members:read', 'webhooks:manage'],
  });
  partner = { key: made.client_key, token: await issueToken(gateway, made) };
  receiver = await startReceiver({ secrets });
  const subscribed = await postJson(
    `${gateway.url}/api/v1/webhooks`,
    { url: receiver.url('/p'), types: ['members'] },
    bearer(partner.token).headers,
  );
  secrets.set('/p', subscribed.body.data.secret as string);
  worker = await startWebhookWorker(env, LOCAL_WEBHOOKS);
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await receiver?.close();
  await gateway?.close();
  await dashboard?.close().catch(() => undefined);
  await env?.destroy().catch(() => undefined);
  await server?.destroy();
});

describe('an erasure when things fail', () => {
  it('when the dashboard database is down, then it fails saying so and changes nothing read; run again once it is back, it completes', async () => {
    const id = await readMember();
    // The test's own connection closed first: the server's stop would fail it.
    await dashboard.close();
    await server.stop();
    try {
      const failed = await erase(id);
      expect(failed).toMatchObject({ code: 1 });
      expect((failed as { stderr: string }).stderr).toMatch(/failed|ECONNREFUSED|connect/i);
      // Nothing half-done: the member reads as before, and no erasure was told.
      const read = await getJson(`${gateway.url}/api/v1/members/${id}`, bearer(partner.token));
      expect(read.status).toBe(200);
      expect(read.body.data.full_name).toBe('Deneme Üye');
    } finally {
      await server.start();
    }
    dashboard = await LegacyDashboard.connect(env.legacyUrl);
    const [row] = await dashboard.conn.query<{ full_name: string; is_deleted: number }[]>(
      'SELECT full_name, is_deleted FROM members WHERE id = ?',
      [id],
    );
    expect(row).toMatchObject({ full_name: 'Deneme Üye', is_deleted: 0 });
    expect(erasuresOf(id)).toEqual([]);

    const done = await erase(id);
    expect(done).toMatchObject({ notified: [partner.key] });
    await eventually(() => expect(erasuresOf(id)).toHaveLength(1), 5000);
    const after = await getJson(`${gateway.url}/api/v1/members/${id}`, bearer(partner.token));
    expect(after.status).toBe(404);
  });

  it('when the webhook worker is down at erase time, then the recipient is told once a worker is back', async () => {
    const id = await readMember();
    await worker!.close();
    worker = undefined;
    expect(await erase(id)).toMatchObject({ notified: [partner.key] });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(erasuresOf(id)).toEqual([]);
    worker = await startWebhookWorker(env, LOCAL_WEBHOOKS);
    await eventually(() => expect(erasuresOf(id)).toHaveLength(1), 10_000);
  });

  it('when two erasures of one member run at once, then the recipient is told once', async () => {
    const id = await readMember();
    const results = await Promise.all([erase(id), erase(id)]);
    // Both end with the member erased; one may find it already done.
    expect(results.some((r) => 'notified' in r)).toBe(true);
    await eventually(() => expect(erasuresOf(id)).toHaveLength(1), 5000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(erasuresOf(id)).toHaveLength(1);
    const receipts = await gateway.db.memberErasure.findMany({ where: { member_id: id } });
    expect(receipts).toHaveLength(1);
    expect(receipts[0]!.completed).toBe(true);
  });
});
