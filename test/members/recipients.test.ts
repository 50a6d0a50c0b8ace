// Who received whose data (docs/decisions/0023-data-classes.md, "Recipients"): partner A gets a
// member by webhook, B reads it, D follows the change feed, C never touches it; `npm run members
// -- recipients` names A, B and D with the classes each received, and C never. The record is
// written before the data leaves: it is there the moment an answer arrives, with no flush to
// wait for, so a gateway killed right after answering loses nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataClass } from '#api/data-classes.js';
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
import { syncOnce } from '../support/sync-once.js';
import { LOCAL_WEBHOOKS, startReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { feedSettled } from '../support/feed-horizon.js';
import { startWebhookWorker } from '../support/worker.js';

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let gateway: RunningGateway;
let worker: Awaited<ReturnType<typeof startWebhookWorker>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const secrets = new Map<string, string>();
let memberId: number;
let other: number;
const partner: Record<'a' | 'b' | 'c' | 'd', { key: string; token: string }> = {} as never;

async function client(dataClasses: DataClass[]) {
  const made = await createTestClient(gateway.db, {
    scopes: ['members:list', 'members:read', 'webhooks:manage'],
    dataClasses,
  });
  return { key: made.client_key, token: await issueToken(gateway, made) };
}

interface Listed {
  client_key: string;
  classes: string[];
  first_at: string;
  last_at: string;
}
const recipients = async (id: number) =>
  JSON.parse(await operatorCli(env, 'members', 'recipients', String(id), '--json')) as Listed[];

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  const branch = await dashboard.insertBranch({ name: 'Moda' });
  memberId = await dashboard.insertMember({
    branch_id: branch,
    full_name: 'Elif',
    tc_no: '10000000146',
  });
  other = await dashboard.insertMember({ branch_id: branch, full_name: 'Ömer' });
  await syncOnce(env);
  gateway = await startGateway(env, { ...NO_RATE_LIMIT, ...LOCAL_WEBHOOKS });
  partner.a = await client(['identity']);
  partner.b = await client(['contact']);
  partner.c = await client(['contact', 'identity']);
  partner.d = await client([]);
  receiver = await startReceiver({ secrets });
  worker = await startWebhookWorker(env, LOCAL_WEBHOOKS);
});

afterAll(async () => {
  await worker?.close();
  await receiver?.close();
  await gateway?.close();
  await dashboard?.close();
  await env?.destroy();
});

describe('the recipients record', () => {
  it('then a read is recorded before its answer arrives, with the classes it carried', async () => {
    expect(await recipients(memberId)).toEqual([]);
    const read = await getJson(
      `${gateway.url}/api/v1/members/${memberId}`,
      bearer(partner.b.token),
    );
    expect(read.status).toBe(200);
    // At once: nothing is held in memory to be written later.
    const rows = await gateway.db.memberRecipient.findMany({ where: { member_id: memberId } });
    expect(rows).toHaveLength(1);
    expect(await recipients(memberId)).toEqual([
      expect.objectContaining({ client_key: partner.b.key, classes: ['basic', 'contact'] }),
    ]);
  });

  it('then a webhook delivery and the change feed are recorded, and a client that got nothing is not', async () => {
    // Its events are the change below's: none of the members synced before (feed-horizon.ts).
    await feedSettled(gateway.db);
    const subscribed = await postJson(
      `${gateway.url}/api/v1/webhooks`,
      { url: receiver.url('/a'), types: ['members'] },
      bearer(partner.a.token).headers,
    );
    expect(subscribed.status).toBe(201);
    secrets.set('/a', subscribed.body.data.secret as string);
    await dashboard.update('members', memberId, { surname: 'Yıldız' });
    await syncOnce(env);
    await eventually(
      () => expect(receiver.received.some((r) => r.path === '/a')).toBe(true),
      15_000,
    );
    const feed = await getJson(
      `${gateway.url}/api/v1/changes?types=members`,
      bearer(partner.d.token),
    );
    expect(feed.status).toBe(200);
    const listed = await recipients(memberId);
    expect(listed.map((r) => r.client_key).sort()).toEqual(
      [partner.a.key, partner.b.key, partner.d.key].sort(),
    );
    const of = (key: string) => listed.find((r) => r.client_key === key)!;
    expect(of(partner.a.key).classes).toEqual(['basic', 'identity']);
    expect(of(partner.d.key).classes).toEqual(['basic']);
    expect(listed.map((r) => r.client_key)).not.toContain(partner.c.key);
  });

  it('then a list page records every member on it once, and a repeated read keeps one row', async () => {
    for (let i = 0; i < 3; i++) {
      const list = await getJson(`${gateway.url}/api/v1/members`, bearer(partner.c.token));
      expect(list.status).toBe(200);
    }
    const listed = await recipients(other);
    // D followed the feed from its start, which holds every member too.
    expect(listed.map((r) => r.client_key).sort()).toEqual([partner.c.key, partner.d.key].sort());
    expect(listed.find((r) => r.client_key === partner.c.key)!.classes).toEqual([
      'basic',
      'contact',
      'identity',
    ]);
  });

  it('then report shows what is held and who received which classes, and both commands are audited', async () => {
    const report = JSON.parse(
      await operatorCli(env, 'members', 'report', String(memberId), '--json'),
    ) as {
      member_id: number;
      member: Record<string, unknown>;
      kept: { webhook_events: number; member_write_audit: number };
      recipients: Listed[];
    };
    expect(report.member_id).toBe(memberId);
    expect(report.member).toMatchObject({
      full_name: 'Elif',
      surname: 'Yıldız',
      tc_no: '10000000146',
    });
    expect(report.kept.webhook_events).toBeGreaterThanOrEqual(1);
    expect(report.recipients.map((r) => r.client_key)).toContain(partner.a.key);
    const audit = await gateway.db.operatorAudit.findMany({
      where: { action: { in: ['members.recipients', 'members.report'] } },
    });
    expect(audit.map((a) => a.target)).toContain(`member ${memberId}`);
    expect(new Set(audit.map((a) => a.action))).toEqual(
      new Set(['members.recipients', 'members.report']),
    );
  });

  it('then an unknown member exits 1 saying so, and a malformed id exits 2', async () => {
    const unknown = await operatorCli(env, 'members', 'recipients', '999999').catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(unknown).toMatchObject({ code: 1 });
    expect((unknown as { stderr: string }).stderr).toContain('no member with id 999999');
    const malformed = await operatorCli(env, 'members', 'report', 'x1').catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(malformed).toMatchObject({ code: 2 });
  });
});
