// Webhook deliveries through a partner's outage: down, then 500, then 429 with Retry-After,
// then 2xx. Every event arrives, the tries follow WEBHOOK_RETRY_SCHEDULE (shortened through the
// variable) with the 60-second floor after a 429, and the ledger holds. Replay since a time
// resends exactly the failed (or all) events of the window; a rotated secret signs beside the
// new one, and after 24 hours (the clock moved) only the new one signs.
import type { EventStatus } from '#api/webhooks/vocabulary.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
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
import { syncOnce } from '../support/sync-once.js';
import { startReceiver, type Received } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { startWebhookWorker } from '../support/worker.js';

const STEP_SECONDS = 1;
const WEBHOOK_SETTINGS = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 12 }, () => STEP_SECONDS).join(','),
  WEBHOOK_DISPATCH_INTERVAL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
};

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let gateway: RunningGateway;
let worker: Awaited<ReturnType<typeof startWebhookWorker>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const secrets = new Map<string, string>();
let token: string;

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  await generateLegacyData(dashboard.conn, { scale: 0.01, seed: 13 });
  await syncOnce(env);
  gateway = await startGateway(env, { RATE_LIMIT_PER_MINUTE: '100000', ...WEBHOOK_SETTINGS });
  token = await issueToken(
    gateway,
    await createTestClient(gateway.db, {
      scopes: ['members:read', 'notifications:read', 'webhooks:manage'],
    }),
  );
  receiver = await startReceiver({ secrets });
  worker = await startWebhookWorker(env, WEBHOOK_SETTINGS);
});

afterAll(async () => {
  vi.useRealTimers();
  await worker?.close();
  await receiver?.close();
  await gateway?.close();
  await dashboard?.close();
  await env?.destroy();
});

async function subscribe(
  path: string,
  options: { on?: typeof receiver; types?: string[] } = {},
): Promise<number> {
  const answer = await postJson(
    `${gateway.url}/api/v1/webhooks`,
    { url: (options.on ?? receiver).url(path), types: options.types ?? ['members'] },
    bearer(token).headers,
  );
  expect(answer.status).toBe(201);
  secrets.set(path, answer.body.data.secret as string);
  return answer.body.data.id as number;
}

const api = (path: string) => getJson(`${gateway.url}/api/v1${path}`, bearer(token));

async function ledger(id: number) {
  const answer = await api(`/webhooks/${id}`);
  return answer.body.data.deliveries as {
    events: Record<'published' | EventStatus, number>;
    attempts: Record<string, number>;
  };
}

// The tests of one describe below run side by side: one sync at a time.
let syncing: Promise<void> = Promise.resolve();
const syncInTurn = () => (syncing = syncing.then(() => syncOnce(env)));

/** Legacy changes the subscriptions will see: `count` new members. */
async function newMembers(count: number, name: string) {
  for (let i = 0; i < count; i++) {
    await dashboard.insertMember({ branch_id: 1, full_name: `${name} ${i}` });
  }
  await syncInTurn();
}

/** `count` new notifications, for a subscription to notifications only. */
async function newNotifications(count: number, title: string) {
  for (let i = 0; i < count; i++) {
    await dashboard.insertNotification({ branch_id: null, title: `${title} ${i}` });
  }
  await syncInTurn();
}

interface Try {
  webhook_id: string;
  attempted_at: string;
  outcome: string;
  status_code: number | null;
}

async function tries(id: number): Promise<Try[]> {
  const answer = await api(`/webhooks/${id}/deliveries?limit=200`);
  return (answer.body.data as Try[]).reverse();
}

const at = (text: string) => Date.parse(text);

describe('secret rotation', () => {
  const signatures = (r: Received) => r.signature.split(' ');
  const verifies = (secret: string, r: Received, signature: string) => {
    try {
      new Webhook(secret).verify(r.body, {
        'webhook-id': r.id,
        'webhook-timestamp': r.timestamp,
        'webhook-signature': signature,
      });
      return true;
    } catch {
      return false;
    }
  };

  it('when a secret is rotated, then both sign for 24 hours, and after them only the new one', async () => {
    const id = await subscribe('/rotation');
    receiver.answerWith(() => ({ status: 204 }));
    const old = secrets.get('/rotation')!;
    const rotated = await postJson(
      `${gateway.url}/api/v1/webhooks/${id}/rotate-secret`,
      {},
      bearer(token).headers,
    );
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.secret as string;
    expect(fresh).not.toBe(old);
    secrets.set('/rotation', fresh);

    const during = receiver.received.length;
    await newMembers(1, 'Döndürme Sırasında');
    const duringRotation = await eventually(() => {
      const got = receiver.received.slice(during).filter((r) => r.path === '/rotation');
      expect(got).toHaveLength(1);
      return got[0]!;
    }, 10_000);
    const [first, second] = signatures(duringRotation);
    expect(signatures(duringRotation)).toHaveLength(2);
    expect(verifies(fresh, duringRotation, first!)).toBe(true);
    expect(verifies(old, duringRotation, second!)).toBe(true);

    // The clock moved past the 24 hours, for this process: gateway, worker and partner alike.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 24 * 3_600_000 + 60_000);
      const after = receiver.received.length;
      await newMembers(1, 'Döndürmeden Sonra');
      const afterRotation = await eventually(() => {
        const got = receiver.received.slice(after).filter((r) => r.path === '/rotation');
        expect(got).toHaveLength(1);
        return got[0]!;
      }, 10_000);
      expect(signatures(afterRotation)).toHaveLength(1);
      expect(verifies(fresh, afterRotation, afterRotation.signature)).toBe(true);
      expect(verifies(old, afterRotation, afterRotation.signature)).toBe(false);
      expect(afterRotation.verified).toBe(true);
    } finally {
      // Verified while the clock is moved: the signatures carry the moved timestamp.
      vi.useRealTimers();
    }
  }, 60_000);
});

describe('a partner through an outage, and replay since a time, side by side', () => {
  it.concurrent(
    'when a partner is down, then failing, then overwhelmed, then well, then every event arrives, the tries follow the schedule and the ledger holds',
    async () => {
      // A partner of its own: its server goes down and comes back.
      const partner = await startReceiver({ secrets });
      const id = await subscribe('/outage', { on: partner });
      await partner.down();
      await newMembers(4, 'Kesintide Gelen');
      const eventIds = new Set<string>();
      // Down: connections refused, tried again on the schedule.
      await eventually(async () => {
        const made = await tries(id);
        for (const t of made) eventIds.add(t.webhook_id);
        expect(eventIds.size).toBe(4);
        expect(made.filter((t) => t.outcome === 'network_error').length).toBeGreaterThanOrEqual(8);
      }, 15_000);
      // Up, answering 500.
      partner.answerWith(() => ({ status: 500 }));
      await partner.up();
      await eventually(async () => {
        expect(
          (await tries(id)).filter((t) => t.status_code === 500).length,
        ).toBeGreaterThanOrEqual(4);
      }, 15_000);
      // Overwhelmed: 429 with Retry-After: 2 once per event, then well.
      const throttled = new Set<string>();
      partner.answerWith((request) => {
        if (throttled.has(request.id)) return { status: 204 };
        throttled.add(request.id);
        return { status: 429, headers: { 'retry-after': '2' } };
      });
      await eventually(
        async () => expect((await ledger(id)).events.delivered).toBe(4),
        90_000,
        500,
      );

      const made = await tries(id);
      const byEvent = new Map<string, Try[]>();
      for (const t of made) byEvent.set(t.webhook_id, [...(byEvent.get(t.webhook_id) ?? []), t]);
      for (const [event, list] of byEvent) {
        for (let i = 1; i < list.length; i++) {
          const gap = at(list[i]!.attempted_at) - at(list[i - 1]!.attempted_at);
          // The floor after a 429 (Retry-After was 2 s); the schedule's step, -20 %, otherwise.
          const floor = list[i - 1]!.status_code === 429 ? 60_000 : STEP_SECONDS * 800;
          expect([event, i, gap >= floor - 50]).toEqual([event, i, true]);
        }
        expect(list.at(-1)!.outcome).toBe('delivered');
      }
      const received = partner.received;
      expect(new Set(received.map((r) => r.id))).toEqual(new Set(byEvent.keys()));
      expect(received.every((r) => r.verified)).toBe(true);
      const final = await ledger(id);
      expect(final.events).toEqual({
        published: 4,
        delivered: 4,
        failed: 0,
        pending: 0,
        cancelled: 0,
      });
      expect(final.attempts.delivered).toBe(4);
      await partner.close();
    },
    120_000,
  );

  it.concurrent(
    'when replaying failed events since a time, then exactly the failed ones of the window come again; all, then every one',
    async () => {
      const id = await subscribe('/replay', { types: ['notifications'] });
      // A first event delivered, then three that fail for good (the schedule spent).
      receiver.answerWith(() => ({ status: 204 }));
      await newNotifications(1, 'Teslim Edilen');
      await eventually(async () => expect((await ledger(id)).events.delivered).toBe(1));
      const window = new Date().toISOString();
      receiver.answerWith((request) => ({ status: request.path === '/replay' ? 503 : 204 }));
      await newNotifications(3, 'Başarısız');
      await eventually(async () => expect((await ledger(id)).events.failed).toBe(3), 40_000, 500);
      const failedIds = new Set(
        (await tries(id)).filter((t) => t.outcome !== 'delivered').map((t) => t.webhook_id),
      );
      expect(failedIds.size).toBe(3);

      receiver.answerWith(() => ({ status: 204 }));
      const before = receiver.received.length;
      const replay = await postJson(
        `${gateway.url}/api/v1/webhooks/${id}/replay`,
        { since: window, failed_only: true },
        bearer(token).headers,
      );
      expect([replay.status, replay.body.data.replayed]).toEqual([202, 3]);
      await eventually(async () => expect((await ledger(id)).events.delivered).toBe(4), 20_000);
      const resent = receiver.received.slice(before).filter((r) => r.path === '/replay');
      expect(new Set(resent.map((r) => r.id))).toEqual(failedIds);

      // All since the start: the four delivered ones again, each with its own webhook-id.
      const again = receiver.received.length;
      const all = await postJson(
        `${gateway.url}/api/v1/webhooks/${id}/replay`,
        { since: new Date(0).toISOString() },
        bearer(token).headers,
      );
      expect(all.body.data.replayed).toBe(4);
      await eventually(() => {
        const resentAll = receiver.received.slice(again).filter((r) => r.path === '/replay');
        expect(resentAll).toHaveLength(4);
      }, 20_000);
      const first = receiver.received.filter((r) => r.path === '/replay');
      expect(new Set(first.map((r) => r.id)).size).toBe(4);
    },
    90_000,
  );
});
