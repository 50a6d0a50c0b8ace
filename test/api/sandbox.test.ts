// The partners' sandbox (docs/decisions/0024-sandbox.md): a sandbox client (sbx_ key) reads a
// generated club and never a live row, a live client never a sandbox row, by id, search and feed;
// a simulated change reaches the sandbox client's webhook and no live subscriber (within 2 s:
// sandbox-events.timed.test.ts); a client bound to a branch changes only its branch's rows; its
// writes land in the sandbox's dashboard; nothing done in the sandbox changes the live dashboard;
// `reset` makes a new club; a live client finds nothing under /api/v1/sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLegacyData } from '../../scripts/legacy/generate-data.js';
import { ConsoleBrowser } from '../support/console-session.js';
import { operatorCli, operatorCliWith } from '../support/operator-cli.js';
import { createTestClient, getJson, bearer, issueToken, postJson } from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { syncOnce } from '../support/sync-once.js';
import { eventually } from '../support/eventually.js';
import { startSandboxFixture, type SandboxFixture } from '../support/sandbox.js';

/** A live member no generated club has: its values are what a sandbox token must never see. */
const LIVE = {
  id: 900_001,
  full_name: 'Canlıüye',
  surname: 'Gerçekkişi',
  phone: '05559990001',
  tc_no: '98765432106',
  qr_code: 'LIVE-DOOR-CODE-1',
};

let fixture: SandboxFixture;
let live: LegacyDashboard;
let sandboxLegacy: LegacyDashboard;
let sandboxToken: string;
let liveToken: string;

/** The live dashboard's tables, each as its rows' checksum: what no sandbox action may change. */
async function liveChecksums(): Promise<string> {
  const tables = await live.query<{ name: string }>(
    'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()',
  );
  const sums = await live.query<Record<string, unknown>>(
    `CHECKSUM TABLE ${tables.map((t) => `\`${t.name}\``).join(', ')} EXTENDED`,
  );
  return JSON.stringify(sums, (_key, value: unknown) =>
    typeof value === 'bigint' ? value.toString() : value,
  );
}

beforeAll(async () => {
  fixture = await startSandboxFixture(async (env) => {
    live = await LegacyDashboard.connect(env.legacyUrl);
    await generateLegacyData(live.conn, { scale: 0.05, seed: 3 });
    await live.insertMember({ ...LIVE, branch_id: 1 });
    await syncOnce(env);
  });
  sandboxLegacy = await LegacyDashboard.connect(fixture.config.sandbox.legacyUrl);
  sandboxToken = fixture.sandbox.token;
  liveToken = fixture.liveToken;
}, 120_000);

afterAll(async () => {
  await live?.close();
  await sandboxLegacy?.close();
  await fixture?.close();
});

const get = (token: string, path: string) =>
  getJson(`${fixture.gateway.url}/api/v1${path}`, bearer(token));
const post = (token: string, path: string, body: unknown) =>
  postJson(`${fixture.gateway.url}/api/v1${path}`, body, bearer(token).headers);

/** Every member page of the token's club, from the list endpoint. */
async function allMembers(token: string): Promise<Record<string, unknown>[]> {
  const members: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const answer = await get(token, `/members?limit=100&page=${page}`);
    expect(answer.status).toBe(200);
    members.push(...(answer.body.data as Record<string, unknown>[]));
    if ((answer.body.data as unknown[]).length < 100) return members;
  }
}

/** Every change of the feed from its start, for the token's club. */
async function wholeFeed(token: string): Promise<unknown[]> {
  const changes: unknown[] = [];
  let cursor: string | undefined;
  for (;;) {
    const answer = await get(
      token,
      `/changes?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(answer.status).toBe(200);
    changes.push(...(answer.body.data as unknown[]));
    cursor = answer.body.next_cursor as string;
    if (!answer.body.has_more) return changes;
  }
}

describe('the partners sandbox', () => {
  it('a sandbox client is made with an sbx_ key, and reads only the generated club: no live member by list, id, search or feed', async () => {
    expect(fixture.sandbox.key).toMatch(/^sbx_[0-9a-f]{32}$/);
    const members = await allMembers(sandboxToken);
    expect(members.length).toBeGreaterThan(100);
    const seen = JSON.stringify(members);
    // The feed shows a load once every transaction older than it on the server has ended.
    let feed = '';
    await eventually(async () => {
      feed = JSON.stringify(await wholeFeed(sandboxToken));
      expect(feed.length).toBeGreaterThan(1000);
    }, 20_000);
    const { id: liveId, ...values } = LIVE;
    expect((await get(sandboxToken, `/members/${liveId}`)).status).toBe(404);
    for (const value of Object.values(values)) {
      expect(seen).not.toContain(value);
      expect(feed).not.toContain(value);
    }
    for (const search of [LIVE.surname, LIVE.phone, LIVE.tc_no]) {
      const found = await get(sandboxToken, `/members?search=${encodeURIComponent(search)}`);
      expect(found.status).toBe(200);
      expect(found.body.data).toEqual([]);
    }
  });

  it('a live client never sees a sandbox row: not by id, search or feed', async () => {
    const [generated] = await sandboxLegacy.query<{ id: number; surname: string }>(
      'SELECT id, surname FROM members WHERE is_deleted = 0 AND surname IS NOT NULL ORDER BY id DESC LIMIT 1',
    );
    const liveMember = await get(liveToken, `/members/${LIVE.id}`);
    expect(liveMember.status).toBe(200);
    // The live club's ids stop far below the sandbox's newest member's.
    const [{ n }] = (await live.query<{ n: number }>(
      'SELECT COUNT(*) AS n FROM members WHERE id = ?',
      [generated!.id],
    )) as [{ n: number }];
    if (Number(n) === 0) {
      expect((await get(liveToken, `/members/${generated!.id}`)).status).toBe(404);
    }
    const sandboxMembers = JSON.stringify(await allMembers(sandboxToken));
    const liveFeed = JSON.stringify(await wholeFeed(liveToken));
    expect(liveFeed).toContain(LIVE.qr_code);
    // A value only the sandbox has: its generated QR codes look QR0000…, the live ones do not.
    const sandboxCodes = [...sandboxMembers.matchAll(/"qr_code":"(QR\d+)"/g)].map((m) => m[1]!);
    expect(sandboxCodes.length).toBeGreaterThan(50);
    const liveCodes = new Set(
      (await live.query<{ qr_code: string }>('SELECT qr_code FROM members')).map(
        (row) => row.qr_code,
      ),
    );
    const sandboxOnly = sandboxCodes.filter((code) => !liveCodes.has(code));
    expect(sandboxOnly.length).toBeGreaterThan(0);
    for (const code of sandboxOnly.slice(0, 20)) expect(liveFeed).not.toContain(`"${code}"`);
  });

  it('a simulated members change reaches the sandbox client webhook, and no live subscriber', async () => {
    const sandboxHook = await post(sandboxToken, '/webhooks', {
      url: fixture.receiver.url('/sandbox'),
      types: ['members'],
    });
    expect(sandboxHook.status).toBe(201);
    fixture.secrets.set('/sandbox', sandboxHook.body.data.secret as string);
    const liveHook = await post(liveToken, '/webhooks', {
      url: fixture.receiver.url('/live'),
      types: ['members'],
    });
    expect(liveHook.status).toBe(201);
    fixture.secrets.set('/live', liveHook.body.data.secret as string);

    const before = await liveChecksums();
    const made = await post(sandboxToken, '/sandbox/events', { type: 'members' });
    expect(made.status).toBe(202);
    expect(made.body.data).toMatchObject({ type: 'members', made: 'created' });
    const id = made.body.data.id as number;
    await eventually(() => {
      const arrived = fixture.receiver.received.filter(
        (r) => r.path === '/sandbox' && (r.parsed.data as { id: number }).id === id,
      );
      expect(arrived).toHaveLength(1);
      expect(arrived[0]!.verified).toBe(true);
      expect(arrived[0]!.parsed.type).toBe('members.upsert');
    }, 5000);

    const changed = await post(sandboxToken, '/sandbox/events', { type: 'members', id });
    expect(changed.status).toBe(202);
    expect(changed.body.data).toEqual({ type: 'members', id, made: 'changed' });
    await eventually(() => {
      const ofMember = fixture.receiver.received.filter(
        (r) => r.path === '/sandbox' && (r.parsed.data as { id: number }).id === id,
      );
      expect(ofMember).toHaveLength(2);
    }, 5000);
    // The live dispatcher had the same time and more: nothing for the live subscriber.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(fixture.receiver.received.filter((r) => r.path === '/live')).toEqual([]);
    expect(await liveChecksums()).toBe(before);
  });

  it('a sandbox member write lands in the sandbox dashboard, not the live one', async () => {
    const before = await liveChecksums();
    const created = await post(sandboxToken, '/members', {
      full_name: 'Denemeüye',
      surname: 'Sandboxlu',
      phone: '05321112233',
      branch_id: 1,
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as number;
    const [row] = await sandboxLegacy.query<{ surname: string }>(
      'SELECT surname FROM members WHERE id = ?',
      [id],
    );
    expect(row?.surname).toBe('Sandboxlu');
    expect((await get(sandboxToken, `/members/${id}`)).body.data.surname).toBe('Sandboxlu');
    const found = await get(liveToken, '/members?search=Sandboxlu');
    expect(found.body.data).toEqual([]);
    expect(await liveChecksums()).toBe(before);
  });

  it('bad input: an unknown type is 400, an unknown id 404, a type outside the scopes 403; a live client gets 404', async () => {
    const unknownType = await post(sandboxToken, '/sandbox/events', { type: 'wallets' });
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.error).toBe('VALIDATION_ERROR');
    const unknownId = await post(sandboxToken, '/sandbox/events', {
      type: 'members',
      id: 2_000_000_000,
    });
    expect(unknownId.status).toBe(404);
    expect(unknownId.body.error).toBe('NOT_FOUND');
    const narrow = await issueToken(
      fixture.gateway,
      await createTestClient(fixture.gateway.db, { scopes: ['members:read'], club: 'sandbox' }),
    );
    const outside = await post(narrow, '/sandbox/events', { type: 'staff' });
    expect(outside.status).toBe(403);
    expect(outside.body.error).toBe('INSUFFICIENT_SCOPE');
    const fromLive = await post(liveToken, '/sandbox/events', { type: 'members' });
    expect(fromLive.status).toBe(404);
    expect(fromLive.body.error).toBe('NOT_FOUND');
  });

  it('a sandbox client bound to a branch changes and makes only rows of its branch', async () => {
    const bound = await issueToken(
      fixture.gateway,
      await createTestClient(fixture.gateway.db, {
        scopes: ['members:read'],
        branchId: 1,
        club: 'sandbox',
      }),
    );
    const [other] = await sandboxLegacy.query<{ id: number }>(
      'SELECT id FROM members WHERE branch_id <> 1 ORDER BY id LIMIT 1',
    );
    const refused = await post(bound, '/sandbox/events', { type: 'members', id: other!.id });
    expect(refused.status).toBe(404);
    const made = await post(bound, '/sandbox/events', { type: 'members' });
    expect(made.status).toBe(202);
    const [row] = await sandboxLegacy.query<{ branch_id: number }>(
      'SELECT branch_id FROM members WHERE id = ?',
      [made.body.data.id],
    );
    expect(row?.branch_id).toBe(1);
  });

  it('the operator makes sandbox clients with npm run clients -- create --sandbox, bound to a branch of the sandbox; bad input says why', async () => {
    const created = JSON.parse(
      await operatorCli(
        fixture.env,
        'clients',
        'create',
        '--sandbox',
        '--name',
        'Acme deneme',
        '--scopes',
        'members:read',
        '--branch',
        '2',
        '--json',
      ),
    ) as { client_key: string; branch_id: number; sandbox: boolean };
    expect(created).toMatchObject({ branch_id: 2, sandbox: true });
    expect(created.client_key).toMatch(/^sbx_/);
    const refusal = (args: string[], variables: Record<string, string> = {}) =>
      operatorCliWith(fixture.env, variables, 'clients', ...args).then(
        () => null,
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
    const create = ['create', '--sandbox', '--name', 'X', '--scopes', 'members:read'];
    expect(await refusal([...create, '--branch', '999'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('branch 999 does not exist'),
    });
    expect(await refusal(create, { SANDBOX: 'off' })).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('the sandbox is off'),
    });
    const badSeed = await operatorCli(fixture.env, 'sandbox', 'reset', '--seed', 'many').then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(badSeed).toMatchObject({ code: 2, stderr: expect.stringContaining('--seed') });
  });

  it('the console makes a sandbox client when its box is ticked, and lists it as one', async () => {
    const browser = new ConsoleBrowser(fixture.gateway);
    await browser.signIn(fixture.env.redisPrefix);
    await browser.get('/console/clients');
    const made = await browser.post('/console/clients', {
      name: 'Konsol deneme',
      scopes: 'members:read',
      sandbox: 'yes',
    });
    expect(made.status).toBe(200);
    const row = await fixture.gateway.db.apiClient.findFirstOrThrow({
      where: { name: 'Konsol deneme' },
    });
    expect(row.client_key).toMatch(/^sbx_/);
    expect(made.html).toContain(row.client_key);
    expect((await browser.get('/console/clients')).html).toMatch(/active, sandbox/);
  });

  it('the generated club and its read model stay under 50 MB together', async () => {
    const [{ bytes }] = (await sandboxLegacy.query<{ bytes: string }>(
      `SELECT SUM(data_length + index_length) AS bytes FROM information_schema.tables
        WHERE table_schema = DATABASE()`,
    )) as [{ bytes: string }];
    const readModel = await fixture.gateway.db.$queryRawUnsafe<{ bytes: bigint }[]>(
      'SELECT pg_database_size($1) AS bytes',
      new URL(fixture.config.sandbox.dbUrl).pathname.slice(1),
    );
    const total = Number(bytes) + Number(readModel[0]!.bytes);
    expect(total).toBeGreaterThan(1_000_000);
    expect(total).toBeLessThan(50_000_000);
  });

  it('reset generates a new club, which the sandbox client then reads', async () => {
    const before = await liveChecksums();
    const names = async () =>
      JSON.stringify(
        await sandboxLegacy.query(
          'SELECT id, full_name, surname FROM members ORDER BY id LIMIT 50',
        ),
      );
    const old = await names();
    await sandboxLegacy.close();
    const printed = await operatorCli(fixture.env, 'sandbox', 'reset', '--seed', '987654');
    expect(printed).toMatch(/generated afresh \(seed 987654\): \d+ branches/);
    sandboxLegacy = await LegacyDashboard.connect(fixture.config.sandbox.legacyUrl);
    const fresh = await names();
    expect(fresh).not.toBe(old);
    const [first] = await sandboxLegacy.query<{ id: number; surname: string | null }>(
      'SELECT id, surname FROM members WHERE is_deleted = 0 ORDER BY id LIMIT 1',
    );
    await eventually(async () => {
      const answer = await get(sandboxToken, `/members/${first!.id}`);
      expect(answer.status).toBe(200);
      expect(answer.body.data.surname).toBe(first!.surname);
      const list = await get(sandboxToken, '/members?limit=1');
      expect(list.body.pagination.total).toBeGreaterThan(100);
    }, 20_000);
    expect(await liveChecksums()).toBe(before);
  });
});
