// Webhook targets' names, resolved through a name server of the test's own: a silent server
// costs a subscribe at most the resolver's bound and holds no other client's token request up
// (the lookup is not on the thread pool that scrypt uses); a name resolving to a private address
// is refused without the address in the answer, at subscribe time and again at delivery, when
// the name has moved there since (DNS rebinding).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { startDnsServer } from '../support/dns-server.js';
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
import { eventually } from '../support/eventually.js';
import { startWebhookWorker } from '../support/worker.js';

let env: TestEnvironment;
let dns: Awaited<ReturnType<typeof startDnsServer>>;
let gateway: RunningGateway;
let token: string;
let other: TestClient;

beforeAll(async () => {
  env = await createTestEnvironment();
  dns = await startDnsServer();
  // Production's rules: https only, public addresses only. Token requests are timed in a loop
  // for as long as the lookups last: more than the issuance limit's 60 a minute when they are fast.
  gateway = await startGateway(
    env,
    {
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_PER_HOUR: '100000',
      TOKEN_ISSUE_PER_MINUTE: '100000',
    },
    { webhookDnsServers: [dns.server] },
  );
  token = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: ['members:read', 'webhooks:manage'] }),
  );
  other = await createTestClient(gateway.db, { name: 'other' });
});

afterAll(async () => {
  await gateway?.close();
  await dns?.close();
  await env?.destroy();
});

const subscribe = (url: string) =>
  postJson(`${gateway.url}/api/v1/webhooks`, { url, types: ['members'] }, bearer(token).headers);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

async function timedToken(): Promise<number> {
  const started = performance.now();
  await issueToken(gateway, other);
  return performance.now() - started;
}

describe('resolving a target name', () => {
  it('when its name server never answers, then the subscribe is refused within 3 s and token requests keep their pace', async () => {
    const baseline: number[] = [];
    for (let n = 0; n < 5; n++) baseline.push(await timedToken());

    // Four lookups at once: as many as libuv's default thread pool has threads.
    const started = performance.now();
    let settled = false;
    const subscribes = Promise.all(
      [0, 1, 2, 3].map(async (n) => {
        const answer = await subscribe(`https://silent-${n}.partner.test/hook`);
        return { answer, ms: performance.now() - started };
      }),
    ).finally(() => (settled = true));
    const during: number[] = [];
    while (!settled) during.push(await timedToken());

    for (const { answer, ms } of await subscribes) {
      expect([answer.status, answer.body.error]).toEqual([400, 'VALIDATION_ERROR']);
      expect(answer.body.details[0].message).toMatch(/çözümlenemedi/);
      expect(ms).toBeLessThan(3000);
    }
    expect(dns.asked.map((q) => q.name)).toContain('silent-0.partner.test');
    expect(during.length).toBeGreaterThanOrEqual(3);
    console.log(
      `token ms: before ${baseline.map(Math.round).join(',')}; during ${during.map(Math.round).join(',')}`,
    );
    expect(median(during)).toBeLessThan(median(baseline) * 2 + 100);
  });

  it('when the name resolves to a private address, then the refusal does not name the address', async () => {
    dns.serve('private.partner.test', ['10.20.30.40']);
    const answer = await subscribe('https://private.partner.test/hook');
    expect([answer.status, answer.body.error]).toEqual([400, 'VALIDATION_ERROR']);
    expect(answer.body.details[0].message).toMatch(/genel olmayan/);
    expect(JSON.stringify(answer.body)).not.toContain('10.20.30.40');
  });

  it('when the name moves to a loopback address after subscribing, then delivery refuses it without naming it', async () => {
    dns.serve('rebind.partner.test', ['93.184.215.14']);
    const subscribed = await subscribe('https://rebind.partner.test:8443/hook');
    expect(subscribed.status).toBe(201);
    const id = subscribed.body.data.id as number;
    dns.serve('rebind.partner.test', ['127.0.0.1']);

    const worker = await startWebhookWorker(
      env,
      { WEBHOOK_RETRY_SCHEDULE: '3600', WEBHOOK_TIMEOUT_MS: '2000' },
      { dnsServers: [dns.server] },
    );
    try {
      // A pending event past its try: the worker's sweep queues it within seconds.
      await gateway.db.webhookEvent.create({
        data: {
          subscription_id: id,
          event_type: 'members.upsert',
          body: '{}',
          changed_at: new Date(),
          next_attempt_at: new Date(Date.now() - 60_000),
        },
      });
      const attempt = await eventually(async () => {
        const answer = await getJson(
          `${gateway.url}/api/v1/webhooks/${id}/deliveries`,
          bearer(token),
        );
        const [first] = answer.body.data as { outcome: string; response: string | null }[];
        expect(first).toBeDefined();
        return first!;
      }, 15_000);
      expect(attempt.outcome).toBe('refused_target');
      expect(attempt.response).toContain('rebind.partner.test');
      expect(attempt.response).not.toContain('127.0.0.1');
    } finally {
      await worker.close();
    }
  });
});
