// `npm run webhooks -- list | disable | enable | deliveries`, driven from outside as an operator
// would, against subscriptions and delivery tries written straight into the read model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStatus } from '#api/webhooks/vocabulary.js';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import { createWebhookService } from '../../gateway/src/features/webhooks/webhooks.service.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { operatorCli } from '../support/operator-cli.js';
import { createTestClient, type TestClient } from '../support/gateway.js';
import { recordWebhookEvent, type RecordedTry } from '../support/webhook-history.js';

let env: TestEnvironment;
let db: ReadModelClient;
let partner: TestClient;
let other: TestClient;
let busy: number;
let quiet: number;
let elsewhere: number;
const LONG_ANSWER = `Service Unavailable: ${'x'.repeat(200)}`;

const webhooks = (...args: string[]) => operatorCli(env, 'webhooks', ...args);

const recordEvent = (subscriptionId: number, status: EventStatus, tries: RecordedTry[], at: Date) =>
  recordWebhookEvent(db, subscriptionId, status, tries, at);

beforeAll(async () => {
  env = await createTestEnvironment();
  db = createReadModelClient(env.databaseUrl, { poolSize: 2 });
  const service = createWebhookService(db, env.config());
  partner = await createTestClient(db, { name: 'partner' });
  other = await createTestClient(db, { name: 'other' });
  const subscribe = async (client: TestClient, path: string, types: string[]) =>
    (
      await service.create(client.id, {
        url: `https://partner.example.com/${path}`,
        types,
        description: null,
      })
    ).id;
  busy = await subscribe(partner, 'hook', ['members', 'member_packages']);
  quiet = await subscribe(partner, 'quiet', ['members']);
  elsewhere = await subscribe(other, 'elsewhere', ['staff']);
  const start = new Date('2026-11-25T09:00:00.000Z');
  await recordEvent(
    busy,
    'delivered',
    [{ outcome: 'delivered', status_code: 200, response: 'ok' }],
    start,
  );
  await recordEvent(
    busy,
    'failed',
    [
      { outcome: 'timeout', status_code: null, response: null },
      { outcome: 'http_error', status_code: 503, response: LONG_ANSWER },
    ],
    new Date(start.getTime() + 60_000),
  );
  await recordEvent(busy, 'pending', [], new Date(start.getTime() + 120_000));
  await recordEvent(busy, 'cancelled', [], new Date(start.getTime() + 180_000));
});

afterAll(async () => {
  await db?.$disconnect();
  await env?.destroy();
});

type Listed = {
  id: number;
  client_key: string;
  url: string;
  types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  deliveries: { events: Record<string, number>; attempts: Record<string, number> };
};
const listed = async (...args: string[]) =>
  JSON.parse(await webhooks('list', '--json', ...args)) as Listed[];

describe('npm run webhooks', () => {
  it('when listing, then a table shows id, client, url, types, state and the ledger figures', async () => {
    const lines = (await webhooks('list')).trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^ID\s+CLIENT\s+URL\s+TYPES\s+STATE\s+PUBLISHED\s+DELIVERED\s+FAILED\s+PENDING\s+CANCELLED$/,
    );
    const row = (id: number) => lines.find((line) => line.startsWith(`${id} `)) ?? '';
    expect(row(busy)).toMatch(
      new RegExp(
        `^${busy}\\s+${partner.client_key}\\s+https://partner\\.example\\.com/hook\\s+members,member_packages\\s+enabled\\s+4\\s+1\\s+1\\s+1\\s+1$`,
      ),
    );
    expect(row(quiet)).toMatch(/quiet\s+members\s+enabled\s+0\s+0\s+0\s+0\s+0$/);
    expect(row(elsewhere)).toContain(other.client_key);
  });

  it('when listing with --json, then each subscription carries its client key and delivery figures', async () => {
    const rows = await listed();
    expect(rows.map((r) => r.id)).toEqual([busy, quiet, elsewhere]);
    expect(rows[0]).toMatchObject({
      id: busy,
      client_key: partner.client_key,
      url: 'https://partner.example.com/hook',
      types: ['members', 'member_packages'],
      enabled: true,
      disabled_reason: null,
      deliveries: {
        events: { published: 4, delivered: 1, failed: 1, pending: 1, cancelled: 1 },
        attempts: { delivered: 1, timeout: 1, http_error: 1 },
      },
    });
  });

  it('when listing with --client, then only that client subscriptions are shown', async () => {
    expect((await listed('--client', other.client_key)).map((r) => r.id)).toEqual([elsewhere]);
    expect((await listed('--client', partner.client_key)).map((r) => r.id)).toEqual([busy, quiet]);
    expect(await listed('--client', 'ck_nobody')).toEqual([]);
  });

  it('when a subscription is disabled and enabled, then it prints it and the list shows the change', async () => {
    const disabled = await webhooks('disable', String(quiet));
    expect(disabled).toMatch(/disabled \(operator\)/);
    expect(disabled).toContain('https://partner.example.com/quiet');
    expect((await listed()).find((r) => r.id === quiet)).toMatchObject({
      enabled: false,
      disabled_reason: 'operator',
    });

    const enabled = JSON.parse(await webhooks('enable', String(quiet), '--json'));
    expect(enabled).toMatchObject({ id: quiet, enabled: true, disabled_reason: null });
    expect((await listed()).find((r) => r.id === quiet)).toMatchObject({
      enabled: true,
      disabled_reason: null,
    });
  });

  it('when a subscription the worker disabled is disabled by the operator, then the reason becomes operator', async () => {
    await createWebhookService(db, env.config()).setEnabled(null, elsewhere, false, 'gone');
    expect(JSON.parse(await webhooks('disable', String(elsewhere), '--json'))).toMatchObject({
      id: elsewhere,
      enabled: false,
      disabled_reason: 'operator',
    });
  });

  it('when asking for deliveries, then the latest tries are shown newest first with the start of the answer', async () => {
    const lines = (await webhooks('deliveries', String(busy))).trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^ATTEMPTED AT\s+WEBHOOK-ID\s+EVENT TYPE\s+OUTCOME\s+STATUS\s+MS\s+RESPONSE$/,
    );
    expect(lines).toHaveLength(5);
    expect(lines[1]).toMatch(
      /^2026-11-25T09:01:01\.000Z\s+msg_[0-9a-f]{32}\s+members\.upsert\s+http_error\s+503\s+41\s+Service Unavailable: x+$/,
    );
    expect(lines[1]).toContain(LONG_ANSWER.slice(0, 80));
    expect(lines[1]).not.toContain(LONG_ANSWER.slice(0, 81));
    expect(lines[2]).toMatch(
      /^2026-11-25T09:01:00\.000Z\s+msg_\S+\s+members\.upsert\s+timeout\s+-\s+40$/,
    );
    expect(lines[3]).toMatch(
      /^2026-11-25T09:00:00\.000Z\s+msg_\S+\s+members\.upsert\s+delivered\s+200\s+40\s+ok$/,
    );
    expect(lines[4]).toBe('(3 of 3 tries, newest first)');

    const limited = JSON.parse(
      await webhooks('deliveries', String(busy), '--limit', '2', '--json'),
    );
    expect(limited.subscription_id).toBe(busy);
    expect(limited.total).toBe(3);
    expect(limited.attempts.map((a: { outcome: string }) => a.outcome)).toEqual([
      'http_error',
      'timeout',
    ]);
    expect(limited.attempts[0]).toMatchObject({
      webhook_id: expect.stringMatching(/^msg_/),
      event_type: 'members.upsert',
      status_code: 503,
      duration_ms: 41,
      response: LONG_ANSWER,
    });
    expect(await webhooks('deliveries', String(quiet))).toBe('(no tries yet)\n');
  });

  it('when --limit is out of range, then deliveries exits 2 naming it', async () => {
    await expect(webhooks('deliveries', String(busy), '--limit', '1001')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--limit'),
    });
  });

  it('when the id is unknown, then each command exits non-zero naming it', async () => {
    for (const command of ['disable', 'enable', 'deliveries'])
      await expect(webhooks(command, '987654')).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringContaining('no webhook subscription with id 987654'),
      });
    await expect(webhooks('disable', '987654', '--json')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('{"error":"no webhook subscription with id 987654"}'),
    });
  });

  it('when --help is asked, then it prints the usage and exits 0', async () => {
    const usage = await webhooks('--help');
    expect(usage).toMatch(/^usage: npm run webhooks/);
    for (const command of ['list', '--client', 'disable', 'enable', 'deliveries', '--limit'])
      expect(usage).toContain(command);
  });
});
