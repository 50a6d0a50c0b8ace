// The bounds on what one client can ask of webhook delivery: WEBHOOK_MAX_SUBSCRIPTIONS_PER_CLIENT
// subscriptions (concurrent creates included), WEBHOOK_REPLAY_MAX events per replay and
// WEBHOOK_REPLAY_EVENTS_PER_HOUR per subscription, refused whole before anything is set back to
// pending.
import { describe, expect } from 'vitest';
import { gatewayTest } from '../support/fixtures.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  postJson,
  type RunningGateway,
} from '../support/gateway.js';

const REPLAY_MAX = 5;
const REPLAYS_PER_HOUR = 3;
const REPLAY_EVENTS_PER_HOUR = 8;
const it = gatewayTest({
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_REPLAY_MAX: String(REPLAY_MAX),
  WEBHOOK_REPLAYS_PER_HOUR: String(REPLAYS_PER_HOUR),
  WEBHOOK_REPLAY_EVENTS_PER_HOUR: String(REPLAY_EVENTS_PER_HOUR),
  RATE_LIMIT_PER_MINUTE: '100000',
});

// Read by the helpers below as by the tests.
let gateway: RunningGateway;

it.beforeAll(({ gateway: started }) => {
  gateway = started;
});

const newPartner = async () => {
  const client = await createTestClient(gateway.db, {
    scopes: ['members:read', 'webhooks:manage'],
  });
  return { client, token: await issueToken(gateway, client) };
};

const subscribe = (token: string, n: number) =>
  postJson(
    `${gateway.url}/api/v1/webhooks`,
    { url: `http://127.0.0.1:8080/hook/${n}`, types: ['members'] },
    bearer(token).headers,
  );

describe('subscriptions per client', () => {
  it('when a client has 10 subscriptions, then the 11th is 400 naming the limit; another client is not held back', async () => {
    const { client, token } = await newPartner();
    for (let n = 0; n < 10; n++) expect((await subscribe(token, n)).status).toBe(201);

    const refused = await subscribe(token, 10);
    expect([refused.status, refused.body.error]).toEqual([400, 'VALIDATION_ERROR']);
    expect(refused.body.message).toMatch(/en fazla 10/i);
    expect(refused.body.details).toEqual([
      expect.objectContaining({ message: expect.stringContaining('10') }),
    ]);
    expect(await gateway.db.webhookSubscription.count({ where: { client_id: client.id } })).toBe(
      10,
    );

    expect((await subscribe((await newPartner()).token, 0)).status).toBe(201);
  });

  it('when 15 creates arrive at once, then exactly 10 succeed', async () => {
    const { client, token } = await newPartner();
    const answers = await Promise.all(Array.from({ length: 15 }, (_, n) => subscribe(token, n)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(10).fill(201), ...Array(5).fill(400)]);
    expect(await gateway.db.webhookSubscription.count({ where: { client_id: client.id } })).toBe(
      10,
    );
  });
});

describe('replay', () => {
  it('when a replay would cover more than WEBHOOK_REPLAY_MAX events, then 400 and nothing is replayed', async () => {
    const { token } = await newPartner();
    const subscribed = await subscribe(token, 0);
    const id = subscribed.body.data.id as number;
    const start = Date.now() - 60_000;
    const at = (n: number) => new Date(start + n * 1000);
    // Six delivered events and one failed, oldest first.
    for (let n = 0; n < 7; n++) {
      await gateway.db.webhookEvent.create({
        data: {
          subscription_id: id,
          event_type: 'members.upsert',
          body: '{}',
          changed_at: at(n),
          created_at: at(n),
          status: n === 6 ? 'failed' : 'delivered',
          attempts: 1,
        },
      });
    }
    const replay = (since: Date, failedOnly = false) =>
      postJson(
        `${gateway.url}/api/v1/webhooks/${id}/replay`,
        { since: since.toISOString(), failed_only: failedOnly },
        bearer(token).headers,
      );
    const pending = () =>
      gateway.db.webhookEvent.count({ where: { subscription_id: id, status: 'pending' } });

    const refused = await replay(at(0));
    expect([refused.status, refused.body.error]).toEqual([400, 'VALIDATION_ERROR']);
    expect(refused.body.message).toContain(String(REPLAY_MAX));
    expect(await pending()).toBe(0);

    // failed_only counts only the failed ones.
    expect((await replay(at(0), true)).body.data).toEqual({ replayed: 1 });
    // The five delivered since the second: exactly the limit.
    const accepted = await replay(at(1));
    expect([accepted.status, accepted.body.data]).toEqual([202, { replayed: 5 }]);
    expect(await pending()).toBe(6);
  });
});

describe('replays per hour', () => {
  it('when a subscription has asked for WEBHOOK_REPLAYS_PER_HOUR replays, then the next is 429 with Retry-After; another subscription is not held back', async () => {
    const { token } = await newPartner();
    const ids = [];
    for (const n of [0, 1]) ids.push((await subscribe(token, n)).body.data.id as number);
    const [id, other] = ids as [number, number];
    const replay = (subscription: number) =>
      postJson(
        `${gateway.url}/api/v1/webhooks/${subscription}/replay`,
        { since: new Date(Date.now() - 60_000).toISOString() },
        bearer(token).headers,
      );

    for (let n = 0; n < REPLAYS_PER_HOUR; n++) expect((await replay(id)).status).toBe(202);
    const refused = await replay(id);
    expect([refused.status, refused.body.error]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
    expect(refused.body.message).toContain(String(REPLAYS_PER_HOUR));
    const retryAfter = refused.body.retryAfter as number;
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(refused.headers.get('retry-after')).toBe(String(retryAfter));

    expect((await replay(other)).status).toBe(202);

    // Once the hour has passed, the subscription may replay again.
    await gateway.db.webhookSubscription.update({
      where: { id },
      data: { replay_window_at: new Date(Date.now() - 3_600_001) },
    });
    expect((await replay(id)).status).toBe(202);
  });

  it('when a replay would take the hour past WEBHOOK_REPLAY_EVENTS_PER_HOUR events, then 429 says how many remain and nothing is replayed', async () => {
    const { token } = await newPartner();
    const id = (await subscribe(token, 0)).body.data.id as number;
    const start = Date.now() - 60_000;
    const at = (n: number) => new Date(start + n * 1000);
    for (let n = 0; n < 7; n++) {
      await gateway.db.webhookEvent.create({
        data: {
          subscription_id: id,
          event_type: 'members.upsert',
          body: '{}',
          changed_at: at(n),
          created_at: at(n),
          status: 'delivered',
          attempts: 1,
        },
      });
    }
    const replay = (since: Date) =>
      postJson(
        `${gateway.url}/api/v1/webhooks/${id}/replay`,
        { since: since.toISOString() },
        bearer(token).headers,
      );
    const pending = () =>
      gateway.db.webhookEvent.count({ where: { subscription_id: id, status: 'pending' } });
    const deliveredAgain = () =>
      gateway.db.webhookEvent.updateMany({
        where: { subscription_id: id },
        data: { status: 'delivered' },
      });

    expect((await replay(at(2))).body.data).toEqual({ replayed: 5 });
    await deliveredAgain();
    // Five more would make ten: three remain.
    const refused = await replay(at(2));
    expect([refused.status, refused.body.error]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
    expect(refused.body.message).toContain(String(REPLAY_EVENTS_PER_HOUR));
    expect(refused.body.message).toMatch(/\b3 olay kaldı/);
    expect(refused.body.retryAfter).toBeGreaterThan(3500);
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.retryAfter));
    expect(await pending()).toBe(0);
    // Three fit.
    expect((await replay(at(4))).body.data).toEqual({ replayed: 3 });

    // Once the hour has passed, the events count from none again.
    await deliveredAgain();
    await gateway.db.webhookSubscription.update({
      where: { id },
      data: { replay_window_at: new Date(Date.now() - 3_600_001) },
    });
    expect((await replay(at(2))).body.data).toEqual({ replayed: 5 });
  });

  it('when the OpenAPI document describes replay, then it names the 429 and Retry-After', async () => {
    const document = await getJson(`${gateway.url}/api/v1/openapi.json`);
    const replay = document.body.paths['/api/v1/webhooks/{id}/replay'].post;
    expect(replay.responses['429'].headers['Retry-After']).toBeDefined();
    expect(replay.description).toMatch(/replays per subscription in an hour[^]*429/);
    expect(replay.description).toMatch(/events replayed per subscription in an hour[^]*remain/);
  });
});
