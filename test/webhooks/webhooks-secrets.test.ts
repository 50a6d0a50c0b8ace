// Signing secrets at rest: the table holds none in clear (read from PostgreSQL itself); after a
// new key is put first and `npm run webhooks -- reencrypt-secrets` runs, every secret (one stored
// in plain text before encryption included) is under the new key, and every subscription still
// verifies at a real receiver, before and after the old key is dropped. A worker whose keys open
// nothing logs an error naming SECRETS_KEY and keeps the events; the partner API is not affected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookSecrets } from '#api/webhooks/secrets.js';
import { readModelPool } from '#common/databases.js';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import {
  TEST_SECRETS_KEY,
  createTestEnvironment,
  type TestEnvironment,
} from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  postJson,
  startGateway,
  type RunningGateway,
  type TestClient,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { captureLogs } from '../support/log-capture.js';
import { operatorCliWith } from '../support/operator-cli.js';
import { syncOnce } from '../support/sync-once.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { startWebhookWorker } from '../support/worker.js';

const OLD_KEY = TEST_SECRETS_KEY;
const NEW_KEY = Buffer.from('the key put first at rotation!!!').toString('base64');
const WRONG_KEY = Buffer.from('a key that opens none of them!!!').toString('base64');
const WEBHOOK_SETTINGS = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2',
  WEBHOOK_DISPATCH_INTERVAL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
};
const PATHS = ['/sealed', '/rotated', '/plain'];

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let gateway: RunningGateway | undefined;
let worker: Awaited<ReturnType<typeof startWebhookWorker>> | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const secrets = new Map<string, string>();
const ids = new Map<string, number>();
let token: string;
let partner: TestClient;

/** The gateway and the worker (started again) with these keys of SECRETS_KEY. */
async function useKeys(keys: { gateway: string[]; worker: string[] }, logger = captureLogs()) {
  await worker?.close();
  await gateway?.close();
  const limits = { RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_HOUR: '100000' };
  gateway = await startGateway(env, {
    ...limits,
    ...WEBHOOK_SETTINGS,
    SECRETS_KEY: keys.gateway.join(','),
  });
  worker = await startWebhookWorker(
    env,
    { ...WEBHOOK_SETTINGS, SECRETS_KEY: keys.worker.join(',') },
    { logger: logger.logger },
  );
  return logger;
}

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  await generateLegacyData(dashboard.conn, { scale: 0.01, seed: 21 });
  await syncOnce(env);
  receiver = await startReceiver({ secrets });
  await useKeys({ gateway: [OLD_KEY], worker: [OLD_KEY] });
  partner = await createTestClient(gateway!.db, { scopes: ['members:read', 'webhooks:manage'] });
  token = await issueToken(gateway!, partner);
});

afterAll(async () => {
  await worker?.close();
  await gateway?.close();
  await receiver?.close();
  await dashboard?.close();
  await env?.destroy();
});

const api = (path: string) => `${gateway!.url}/api/v1${path}`;

async function subscribe(path: string) {
  const answer = await postJson(
    api('/webhooks'),
    { url: receiver.url(path), types: ['members'] },
    bearer(token).headers,
  );
  expect(answer.status).toBe(201);
  secrets.set(path, answer.body.data.secret as string);
  ids.set(path, answer.body.data.id as number);
}

async function rotate(path: string) {
  const answer = await postJson(
    api(`/webhooks/${ids.get(path)}/rotate-secret`),
    {},
    bearer(token).headers,
  );
  expect(answer.status).toBe(200);
  secrets.set(path, answer.body.data.secret as string);
}

/** The secret columns as PostgreSQL holds them. */
async function stored() {
  const { rows } = await readModelPool(gateway!.db).query<{
    id: number;
    secret: string;
    previous_secret: string | null;
  }>('SELECT id, secret, previous_secret FROM webhook_subscriptions ORDER BY id');
  return rows;
}

/** A new member; every subscription receives its event, verified with its secret. */
async function everyoneVerifies(name: string) {
  const from = receiver.received.length;
  await dashboard.insertMember({ branch_id: 1, full_name: name });
  await syncOnce(env);
  await eventually(() => {
    // A subscription may also get changes committed just before it was made (its start is
    // at-least-once): the member's own event is the one counted.
    const got = receiver.received.slice(from).filter((r) => r.body.includes(name));
    for (const path of PATHS) expect(got.filter((r) => r.path === path)).toHaveLength(1);
    expect(got.every((r) => r.verified)).toBe(true);
  }, 15_000);
}

const reencrypt = (keys: string[]) =>
  operatorCliWith(env, { SECRETS_KEY: keys.join(',') }, 'webhooks', 'reencrypt-secrets', '--json');

describe('signing secrets at rest', () => {
  it('when subscriptions are created and rotated, then the table holds no secret in clear, and each delivery verifies', async () => {
    for (const path of PATHS) await subscribe(path);
    const rotatedOut = secrets.get('/rotated')!;
    await rotate('/rotated');
    const handedOut = [...secrets.values(), rotatedOut];

    for (const row of await stored()) {
      for (const value of [row.secret, row.previous_secret ?? '']) {
        for (const secret of handedOut) expect(value).not.toContain(secret.slice('whsec_'.length));
      }
      expect(row.secret).toMatch(/^v1\./);
    }
    // A row as it was stored before secrets were encrypted: its secret in clear.
    await readModelPool(gateway!.db).query(
      'UPDATE webhook_subscriptions SET secret = $1 WHERE id = $2',
      [secrets.get('/plain'), ids.get('/plain')],
    );

    await everyoneVerifies('Anahtar Bir');
  }, 60_000);

  it('when a new key is put first and reencrypt-secrets runs, then every secret is under the new key, the plain one too, and each still verifies', async () => {
    await useKeys({ gateway: [NEW_KEY, OLD_KEY], worker: [NEW_KEY, OLD_KEY] });
    // Tokens are checked under SECRETS_KEY too: the partner renews before the old key goes
    // (docs/decisions/0003-tokens.md), which also stores its secret under the new key.
    token = await issueToken(gateway!, partner);
    await everyoneVerifies('Anahtar İki Önce');

    const done = JSON.parse(await reencrypt([NEW_KEY, OLD_KEY])) as Record<string, unknown>;
    expect(done).toEqual({ reencrypted: 3, unchanged: 0, unreadable: [] });
    const recorded = await gateway!.db.operatorAudit.findMany({
      where: { action: 'webhooks.reencrypt-secrets' },
    });
    expect(recorded).toMatchObject([
      { source: 'cli', target: '3 re-encrypted, 0 unchanged, 0 unreadable' },
    ]);
    const underNew = webhookSecrets([NEW_KEY]);
    const rows = await stored();
    expect(rows.map((row) => underNew.open(row.secret))).toEqual(PATHS.map((p) => secrets.get(p)));
    const previous = rows.find((row) => row.id === ids.get('/rotated'))!.previous_secret!;
    expect(underNew.open(previous)).toMatch(/^whsec_/);
    for (const row of rows) expect(row.secret).not.toContain('whsec_');
    // Run again: nothing left to do.
    expect(JSON.parse(await reencrypt([NEW_KEY, OLD_KEY]))).toMatchObject({
      reencrypted: 0,
      unchanged: 3,
    });

    await everyoneVerifies('Anahtar İki Sonra');
  }, 120_000);

  it('when the old key is dropped, then each subscription still verifies', async () => {
    await useKeys({ gateway: [NEW_KEY], worker: [NEW_KEY] });
    await everyoneVerifies('Anahtar Üç');
  }, 60_000);

  it('when the worker holds a wrong key, then it logs an error naming SECRETS_KEY, the events wait, and partners are answered as ever', async () => {
    const logs = await useKeys({ gateway: [NEW_KEY], worker: [WRONG_KEY] });
    const from = receiver.received.length;
    await dashboard.insertMember({ branch_id: 1, full_name: 'Yanlış Anahtar' });
    await syncOnce(env);
    const id = ids.get('/sealed')!;
    await eventually(async () => {
      const answer = await getJson(api(`/webhooks/${id}`), bearer(token));
      expect(answer.status).toBe(200);
      expect(answer.body.data.deliveries.events.pending).toBe(1);
      const errors = logs.lines().filter((line) => line.level === 50);
      expect(errors.map((line) => line.msg)).toContainEqual(expect.stringMatching(/SECRETS_KEY/));
    }, 10_000);
    expect(receiver.received.length).toBe(from);
    for (const path of ['/webhooks', `/webhooks/${id}/deliveries`]) {
      expect((await getJson(api(path), bearer(token))).status).toBe(200);
    }
    await rotate('/sealed');

    // In production the command refuses to start without the key, naming it.
    const unset = await operatorCliWith(
      env,
      { NODE_ENV: 'production', SECRETS_KEY: '' },
      'webhooks',
      'reencrypt-secrets',
    ).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(unset?.code).toBe(1);
    expect(unset?.stderr).toMatch(/SECRETS_KEY: required in production/);

    const refused = await reencrypt([WRONG_KEY]).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused?.code).toBe(1);
    expect(refused?.stderr).toMatch(/SECRETS_KEY/);

    // The right key back: what waited is delivered, verified.
    await useKeys({ gateway: [NEW_KEY], worker: [NEW_KEY] });
    await eventually(() => {
      const got = receiver.received.slice(from);
      for (const path of PATHS) expect(got.filter((r) => r.path === path)).toHaveLength(1);
      expect(got.every((r) => r.verified)).toBe(true);
    }, 30_000);
  }, 120_000);
});
