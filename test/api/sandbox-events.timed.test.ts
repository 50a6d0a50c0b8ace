// A simulated change reaches the sandbox client's webhook within 2 s of its POST
// /sandbox/events, a new row and a change alike, and no live subscriber (decision 0024).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, postJson } from '../support/gateway.js';
import { eventually } from '../support/eventually.js';
import { startSandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let fixture: SandboxFixture;

beforeAll(async () => {
  fixture = await startSandboxFixture();
}, 120_000);

afterAll(async () => {
  await fixture?.close();
});

const post = (token: string, path: string, body: unknown) =>
  postJson(`${fixture.gateway.url}/api/v1${path}`, body, bearer(token).headers);

async function subscribe(token: string, path: string) {
  const answer = await post(token, '/webhooks', {
    url: fixture.receiver.url(path),
    types: ['members', 'notifications'],
  });
  expect(answer.status).toBe(201);
  fixture.secrets.set(path, answer.body.data.secret as string);
}

/** The time from the POST to the delivery of the change it made, verified. */
async function deliveredWithin(body: { type: string; id?: number }) {
  const started = Date.now();
  const made = await post(fixture.sandbox.token, '/sandbox/events', body);
  expect(made.status).toBe(202);
  const id = made.body.data.id as number;
  const before = fixture.receiver.received.length;
  await eventually(() => {
    const arrived = fixture.receiver.received
      .slice(Math.max(0, before - 5))
      .filter(
        (r) =>
          r.path === '/sandbox' &&
          r.verified &&
          (r.parsed.data as { type: string; id: number }).type === body.type &&
          (r.parsed.data as { id: number }).id === id &&
          r.at >= started,
      );
    expect(arrived.length).toBeGreaterThan(0);
  }, 5000);
  return { id, ms: Date.now() - started };
}

describe('simulated changes, timed', () => {
  it('a new member, its change, and a notification (synced by reconciliation) each reach the sandbox webhook within 2 s; the live subscriber gets none', async () => {
    await subscribe(fixture.sandbox.token, '/sandbox');
    await subscribe(fixture.liveToken, '/live');
    const created = await deliveredWithin({ type: 'members' });
    expect(created.ms).toBeLessThan(2000);
    const changed = await deliveredWithin({ type: 'members', id: created.id });
    expect(changed.ms).toBeLessThan(2000);
    const notification = await deliveredWithin({ type: 'notifications' });
    expect(notification.ms).toBeLessThan(2000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fixture.receiver.received.filter((r) => r.path === '/live')).toEqual([]);
  });
});
