// A member's erasure (docs/decisions/0023-data-classes.md, "Erasure"), as the club and its
// partners meet it: partner B creates the member (its write answer, an idempotent replay and the
// write audit hold the values), A receives it by webhook, C is bound to another branch and never
// does. `npm run members -- erase` tells exactly A and B (`members.erase`, within 2 s), reads
// answer 404, a replay of A's subscription sends no erased value, and no erased value is left in
// the read-model database, the deployment's Redis or the legacy row.
import pg from 'pg';
import { Redis } from 'ioredis';
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
import { syncOnce } from '../support/sync-once.js';
import { LOCAL_WEBHOOKS, startReceiver, type Received } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { feedSettled } from '../support/feed-horizon.js';
import { startWebhookWorker } from '../support/worker.js';

/** The member's values, each found nowhere else. */
const VALUES = {
  full_name: 'Zeynepnur',
  surname: 'Silinecekoğlu',
  phone: '05551234567',
  email: 'zeynepnur.erase@example.com',
  tc_no: '10000000146',
  gender: 'Kadın',
  birth_date: '1987-06-05',
  address: 'Unutulacak Sokak 9',
};

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let gateway: RunningGateway;
let worker: Awaited<ReturnType<typeof startWebhookWorker>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const secrets = new Map<string, string>();
const partner: Record<'a' | 'b' | 'c', { key: string; token: string }> = {} as never;
let memberId: number;
let qrCode: string;
let since: string;

async function client(name: string, branchId: number | null = null) {
  const made = await createTestClient(gateway.db, {
    name,
    scopes: ['members:list', 'members:read', 'members:write', 'webhooks:manage'],
    branchId,
  });
  return { key: made.client_key, token: await issueToken(gateway, made) };
}

async function subscribe(who: { token: string }, path: string) {
  const answer = await postJson(
    `${gateway.url}/api/v1/webhooks`,
    { url: receiver.url(path), types: ['members'] },
    bearer(who.token).headers,
  );
  expect(answer.status).toBe(201);
  secrets.set(path, answer.body.data.secret as string);
}

const eventsOf = (path: string) => receiver.received.filter((r: Received) => r.path === path);

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  const branch = await dashboard.insertBranch({ name: 'Moda' });
  const elsewhere = await dashboard.insertBranch({ name: 'Kadıköy' });
  await dashboard.insertMember({ branch_id: branch, full_name: 'Başka Üye' });
  await syncOnce(env);
  gateway = await startGateway(env, { ...NO_RATE_LIMIT, ...LOCAL_WEBHOOKS });
  partner.a = await client('A');
  partner.b = await client('B');
  partner.c = await client('C', elsewhere);
  receiver = await startReceiver({ secrets });
  worker = await startWebhookWorker(env, LOCAL_WEBHOOKS);
  await subscribe(partner.a, '/a');
  await subscribe(partner.b, '/b');
  await subscribe(partner.c, '/c');
  since = new Date().toISOString();
  const created = await fetch(`${gateway.url}/api/v1/members`, {
    method: 'POST',
    headers: {
      ...bearer(partner.b.token).headers,
      'content-type': 'application/json',
      'idempotency-key': 'erase-test-1',
    },
    body: JSON.stringify({ ...VALUES, branch_id: branch }),
  });
  expect(created.status).toBe(201);
  const member = ((await created.json()) as { data: { id: number; qr_code: string } }).data;
  memberId = member.id;
  qrCode = member.qr_code;
  await eventually(() => expect(eventsOf('/a').length).toBeGreaterThan(0), 15_000);
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await receiver?.close();
  await gateway?.close();
  await dashboard?.close();
  await env?.destroy();
});

const erased = () => [...Object.values(VALUES), qrCode];
const found = (text: string) => erased().filter((value) => text.includes(value));

describe('npm run members -- erase', () => {
  it('then exactly the recipients are told members.erase within 2 s, and reads answer 404', async () => {
    const before = await getJson(
      `${gateway.url}/api/v1/members/${memberId}`,
      bearer(partner.a.token),
    );
    expect(before.status).toBe(200);
    const holders = JSON.parse(
      await operatorCli(env, 'members', 'recipients', String(memberId), '--json'),
    ) as { client_key: string }[];
    expect(holders.map((h) => h.client_key).sort()).toEqual([partner.a.key, partner.b.key].sort());

    const receipt = JSON.parse(
      await operatorCli(
        env,
        'members',
        'erase',
        String(memberId),
        '--reason',
        'KVKK md. 7 talebi',
        '--json',
      ),
    ) as { member_id: number; erased_at: string; notified: string[] };
    expect(receipt.member_id).toBe(memberId);
    expect(receipt.notified.sort()).toEqual([partner.a.key, partner.b.key].sort());
    const erasure = (path: string) =>
      eventsOf(path).find((r) => (r.parsed as { type: string }).type === 'members.erase');
    await eventually(
      () => {
        expect(erasure('/a')).toBeDefined();
        expect(erasure('/b')).toBeDefined();
      },
      10_000,
      20,
    );
    // From the erasure's commit to each recipient's receipt: the command's own start-up (a
    // process, seconds on a loaded machine) is not the product's delay.
    const erasedAt = Date.parse(receipt.erased_at);
    for (const path of ['/a', '/b']) expect(erasure(path)!.at - erasedAt).toBeLessThan(2000);
    const told = erasure('/a')!;
    expect(told.verified).toBe(true);
    expect((told.parsed as { data: unknown }).data).toMatchObject({
      type: 'members',
      id: memberId,
      op: 'erase',
      data: { id: memberId, erased_at: receipt.erased_at },
    });
    // C never held the member: nothing about it reaches C.
    expect(eventsOf('/c').filter((r) => r.body.includes(`"id":${memberId}`))).toEqual([]);

    const after = await getJson(
      `${gateway.url}/api/v1/members/${memberId}`,
      bearer(partner.a.token),
    );
    expect(after.status).toBe(404);
    // The feed: A is told the erasure; another client sees a plain delete. It shows the erasure
    // once every older transaction on the server has ended (another file's may still run).
    await feedSettled(gateway.db);
    const feed = async (token: string) =>
      (
        (await getJson(`${gateway.url}/api/v1/changes?types=members&limit=1000`, bearer(token)))
          .body.data as { id: number; op: string }[]
      ).filter((c) => c.id === memberId);
    expect((await feed(partner.a.token)).map((c) => c.op)).toEqual(['erase']);
    const stranger = await client('D');
    expect((await feed(stranger.token)).map((c) => c.op)).toEqual(['delete']);
  });

  it('then a replay sends no erased value, and none is left in PostgreSQL, Redis or the legacy row', async () => {
    const sent = receiver.received.length;
    const replay = await postJson(
      `${gateway.url}/api/v1/webhooks/${await subscriptionOf(partner.a)}/replay`,
      { since },
      bearer(partner.a.token).headers,
    );
    expect(replay.status).toBe(202);
    await eventually(
      () => expect(receiver.received.length - sent).toBe(replay.body.data.replayed as number),
      15_000,
    );
    expect(
      found(
        receiver.received
          .slice(sent)
          .map((r) => r.body)
          .join(''),
      ),
    ).toEqual([]);

    // Every table of the read model, as text.
    const client = new pg.Client({ connectionString: env.databaseUrl });
    await client.connect();
    try {
      const { rows: tables } = await client.query<{ name: string }>(
        `SELECT quote_ident(table_name) AS name FROM information_schema.tables
          WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
      );
      expect(tables.length).toBeGreaterThan(20);
      for (const { name } of tables) {
        const { rows } = await client.query<{ t: string }>(`SELECT t::text AS t FROM ${name} t`);
        expect(found(rows.map((r) => r.t).join('\n')), name).toEqual([]);
      }
    } finally {
      await client.end();
    }

    // Every key of the deployment's prefix, whatever its type.
    const redis = new Redis(env.redisUrl);
    try {
      const keys = await redis.keys(`${env.redisPrefix}*`);
      expect(keys.length).toBeGreaterThan(0);
      let text = '';
      for (const key of keys) {
        const type = await redis.type(key);
        if (type === 'string') text += await redis.get(key);
        else if (type === 'hash') text += JSON.stringify(await redis.hgetall(key));
        else if (type === 'list') text += (await redis.lrange(key, 0, -1)).join('\n');
        else if (type === 'set') text += (await redis.smembers(key)).join('\n');
        else if (type === 'zset') text += (await redis.zrange(key, '0', '-1')).join('\n');
        else if (type === 'stream') text += JSON.stringify(await redis.xrange(key, '-', '+'));
      }
      expect(found(text)).toEqual([]);
    } finally {
      redis.disconnect();
    }

    const [row] = await dashboard.conn.query<Record<string, unknown>[]>(
      'SELECT * FROM members WHERE id = ?',
      [memberId],
    );
    expect(found(JSON.stringify(row))).toEqual([]);
    expect(row).toMatchObject({ full_name: 'Silinmiş Üye', phone: '00000000000', is_deleted: 1 });
    expect(row!.qr_code).toBe(`ERASED-${memberId}`);
  });

  it('then erasing it again, or an unknown member, exits 1 saying so; the recipients record stays', async () => {
    const again = await operatorCli(
      env,
      'members',
      'erase',
      String(memberId),
      '--reason',
      'x',
    ).catch((error: { code: number; stderr: string }) => error);
    expect(again).toMatchObject({ code: 1 });
    expect((again as { stderr: string }).stderr).toContain('already erased');
    const unknown = await operatorCli(env, 'members', 'erase', '987654', '--reason', 'x').catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(unknown).toMatchObject({ code: 1 });
    expect((unknown as { stderr: string }).stderr).toContain('no member with id 987654');
    const noReason = await operatorCli(env, 'members', 'erase', String(memberId)).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(noReason).toMatchObject({ code: 2 });
    const listed = JSON.parse(
      await operatorCli(env, 'members', 'recipients', String(memberId), '--json'),
    ) as { client_key: string }[];
    expect(listed.map((r) => r.client_key)).toEqual(
      expect.arrayContaining([partner.a.key, partner.b.key]),
    );
    const audit = await gateway.db.operatorAudit.findFirstOrThrow({
      where: { action: 'members.erase' },
    });
    expect(audit.target).toBe(`member ${memberId}: KVKK md. 7 talebi`);
  });
});

async function subscriptionOf(who: { token: string }): Promise<number> {
  const listed = await getJson(`${gateway.url}/api/v1/webhooks`, bearer(who.token));
  return (listed.body.data as { id: number }[])[0]!.id;
}
