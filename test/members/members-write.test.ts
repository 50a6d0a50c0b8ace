// POST /members and PUT /members/{id} against real MariaDB and PostgreSQL: the legacy row the
// dashboard would have written, the read model on the next GET, validation, duplicates, ETag, and
// a dashboard change in the same second as a partner's, which the worker's next pass brings.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLegacyClient } from '#common/legacy-database.js';
import { syncTable } from '../../worker/src/sync/sync-engine.js';
import { membersTable } from '#read-model/tables/members.table.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  createTestClient,
  issueToken,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { legacySchemaSnapshot } from '../support/legacy-schema-snapshot.js';
import { memberApi, randomPhone, randomTcNo, type MemberApi } from '../support/member-writes.js';

const run = promisify(execFile);
let env: TestEnvironment;
let gateway: RunningGateway;
let dashboard: LegacyDashboard;
let api: MemberApi;
let token: string;
let schemaBefore: string;
let branch: number;
let otherBranch: number;

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  schemaBefore = await legacySchemaSnapshot(dashboard);
  branch = await dashboard.insertBranch({ name: 'Kadıköy' });
  otherBranch = await dashboard.insertBranch();
  // Far more calls than a partner's default minute allows.
  gateway = await startGateway(env, {
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_PER_HOUR: '1000000',
    RATE_LIMIT_PER_DAY: '1000000',
  });
  const client = await createTestClient(gateway.db, {
    scopes: ['members:read', 'members:write'],
  });
  token = await issueToken(gateway, client);
  api = memberApi(gateway.url, token);
});

afterAll(async () => {
  await gateway?.close();
  await dashboard?.close();
  await env?.destroy();
});

const legacyMember = async (id: number) =>
  (await dashboard.query('SELECT * FROM members WHERE id = ?', [id]))[0]!;

describe('creating a member', () => {
  it('when a valid member is posted in each phone form, then the legacy row is numbered and filled as the dashboard does and the next GET shows it', async () => {
    const tcNo = randomTcNo();
    const started = Math.floor(Date.now() / 1000) * 1000;
    const forms = ['+90 532 111 22 33', '5321112234', '05321112235'];
    const created: Record<string, any>[] = [];
    const etags: (string | null)[] = [];
    for (const [i, phone] of forms.entries()) {
      const { status, body, headers } = await api.create({
        full_name: 'Ayşe',
        surname: 'Yılmaz',
        phone,
        branch_id: branch,
        ...(i === 0 ? { tc_no: tcNo, gender: 'Kadın', birth_date: '1990-02-28' } : {}),
        ...(i === 0 ? { email: 'ayse@example.com', address: 'Moda' } : {}),
      });
      expect(status, JSON.stringify(body)).toBe(201);
      expect(headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
      created.push(body.data as Record<string, any>);
      etags.push(headers.get('etag'));
    }
    const pad = String(branch).padStart(3, '0');
    expect(created.map((m) => String(m.member_no))).toEqual(
      [1, 2, 3].map((n) => `${pad}00000${n}`),
    );
    expect(created.map((m) => String(m.phone))).toEqual([
      '05321112233',
      '05321112234',
      '05321112235',
    ]);
    const first = created[0]!;
    expect(first).toMatchObject({
      full_name: 'Ayşe',
      surname: 'Yılmaz',
      tc_no: tcNo,
      gender: 'Kadın',
      birth_date: '1990-02-28',
      branch_id: branch,
      branch_name: 'Kadıköy',
      balance: 0,
      entry_status: false,
      freeze_status: false,
      status: 'Aktif',
      email: 'ayse@example.com',
      address: 'Moda',
    });
    expect(first.qr_code).toMatch(/^QR[A-Z0-9]{20}$/);
    expect(first.referral_code).toMatch(/^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/);
    const registered = Date.parse(first.registered_at);
    expect(registered).toBeGreaterThanOrEqual(started);
    expect(registered).toBeLessThanOrEqual(Date.now());

    // The row as a dashboard session (+03:00) sees it: Istanbul wall clock, dashboard defaults.
    const [row] = await dashboard.query<Record<string, unknown>>(
      `SELECT member_no, phone, status, balance, entry_status, freeze_status, is_deleted,
        DATE_FORMAT(registered_at, '%Y-%m-%d %H:%i:%s') AS registered_at,
        UNIX_TIMESTAMP(registered_at) AS epoch FROM members WHERE id = ?`,
      [first.id],
    );
    expect(row).toMatchObject({
      member_no: first.member_no,
      phone: '05321112233',
      status: 'Aktif',
    });
    expect(Number(row!.epoch) * 1000).toBe(registered);
    expect(
      [row!.balance, row!.entry_status, row!.freeze_status, row!.is_deleted].map(Number),
    ).toEqual([0, 0, 0, 0]);
    const [counter] = await dashboard.query(
      'SELECT last_no FROM member_counters WHERE branch_id = ?',
      [branch],
    );
    expect(Number(counter!.last_no)).toBe(3);

    const read = await api.get(first.id);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(first);
    expect(read.headers.get('etag')).toBe(etags[0]);

    // The worker's own pass over the same rows finds nothing to change.
    const legacy = createLegacyClient(env.legacyReadOnlyUrl, { poolSize: 1 });
    try {
      const run = await syncTable(membersTable, { legacy, readModel: gateway.db });
      expect(run.rowsRead).toBeGreaterThanOrEqual(3);
      expect(run.rowsWritten).toBe(0);
    } finally {
      await legacy.$disconnect();
    }
  });
});

const valid = () => ({ full_name: 'Can', phone: randomPhone(), branch_id: branch });

describe('validation', () => {
  it.each([
    ['full_name', { full_name: '' }],
    ['full_name', { full_name: 'x'.repeat(101) }],
    ['phone', { phone: '0212 123 45 67' }],
    ['phone', { phone: '+90 432 123 45 67' }],
    ['email', { email: 'not-an-address' }],
    ['tc_no', { tc_no: '12345678951' }],
    ['tc_no', { tc_no: '01234567890' }],
    ['gender', { gender: 'Kadin' }],
    ['birth_date', { birth_date: '2023-02-29' }],
    ['birth_date', { birth_date: '2999-01-01' }],
    ['branch_id', { branch_id: 999999 }],
    ['branch_id', { branch_id: 'one' }],
    ['member_no', { member_no: '001000001' }],
    ['balance', { balance: 10 }],
    ['nickname', { nickname: 'x' }],
  ])('when a create has a bad %s, then it is 400 naming the field', async (field, change) => {
    const { status, body } = await api.create({ ...valid(), ...change });
    expect(status).toBe(400);
    expect(body.error).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(body.details)).toContain(field);
  });

  it('when a create names a passive branch, then it is 400 naming branch_id', async () => {
    const passive = await dashboard.insertBranch({ status: 'Pasif' });
    const { status, body } = await api.create({ ...valid(), branch_id: passive });
    expect([status, body.details?.[0]?.field]).toEqual([400, 'branch_id']);
  });

  it.each([
    ['branch_id', { branch_id: 1 }],
    ['qr_code', { qr_code: 'QR1' }],
    ['id', { id: 5 }],
    ['status', { status: 'Pasif' }],
    ['phone', { phone: '123' }],
    ['(body)', {}],
  ])('when an update has %s, then it is 400 and nothing changes', async (field, change) => {
    const { body: created } = await api.create(valid());
    const { status, body } = await api.update(created.data.id, change);
    expect([status, body.error]).toEqual([400, 'VALIDATION_ERROR']);
    expect(JSON.stringify(body.details)).toContain(field);
    expect((await api.get(created.data.id)).body.data).toEqual(created.data);
  });
});

describe('updating a member', () => {
  it('when optional fields are set to null, then they are cleared in legacy and in the answer', async () => {
    const { body: created } = await api.create({
      ...valid(),
      surname: 'Er',
      email: 'c@example.com',
      tc_no: randomTcNo(),
      gender: 'Erkek',
      birth_date: '1980-01-01',
      address: 'Üsküdar',
    });
    const id = created.data.id as number;
    const nulls = {
      surname: null,
      email: null,
      tc_no: null,
      gender: null,
      birth_date: null,
      address: null,
    };
    const { status, body } = await api.update(id, {
      ...nulls,
      full_name: 'Cem',
      phone: '5320000001',
    });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ ...nulls, full_name: 'Cem', phone: '05320000001' });
    const row = await legacyMember(id);
    expect([row.surname, row.email, row.tc_no, row.gender, row.birth_date, row.address]).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    expect((await api.get(id)).body.data).toEqual(body.data);
  });

  it('when the dashboard changes the member in the same second as the partner, then one worker pass brings its change', async () => {
    // updated_at has one-second precision: the partner's version and the dashboard's share it.
    const seconds: boolean[] = [];
    const legacy = createLegacyClient(env.legacyReadOnlyUrl, { poolSize: 1 });
    try {
      for (let round = 0; round < 5; round++) {
        const id = (await api.create(valid())).body.data.id as number;
        expect((await api.update(id, { surname: `Ortak ${round}` })).status).toBe(200);
        const partners = (await legacyMember(id)).updated_at as Date;
        await dashboard.update('members', id, { full_name: `Panel ${round}` });
        seconds.push(
          ((await legacyMember(id)).updated_at as Date).getTime() === partners.getTime(),
        );
        await syncTable(membersTable, { legacy, readModel: gateway.db });
        expect((await api.get(id)).body.data).toMatchObject({
          full_name: `Panel ${round}`,
          surname: `Ortak ${round}`,
        });
      }
    } finally {
      await legacy.$disconnect();
    }
    expect(seconds).toContain(true);
  });
});

describe('the duplicate rule', () => {
  it('when a live member has the tc_no anywhere or the phone in the branch, then create and update are 409', async () => {
    const tcNo = randomTcNo();
    const phone = randomPhone();
    const first = await api.create({ ...valid(), phone, tc_no: tcNo });
    expect(first.status).toBe(201);
    const conflicts = [
      await api.create({ ...valid(), phone }),
      await api.create({ ...valid(), branch_id: otherBranch, tc_no: tcNo }),
    ];
    const other = await api.create(valid());
    conflicts.push(await api.update(other.body.data.id, { phone }));
    conflicts.push(await api.update(other.body.data.id, { tc_no: tcNo }));
    expect(conflicts.map((r) => [r.status, String(r.body.error)])).toEqual(
      Array(4).fill([409, 'DUPLICATE']),
    );
    // The same phone in another branch is no duplicate.
    expect((await api.create({ ...valid(), phone, branch_id: otherBranch })).status).toBe(201);
  });

  it('when the tc_no is held only by a deleted member, then create and update are 409 and nothing is written: the next create takes the next number', async () => {
    const tcNo = randomTcNo();
    const holder = await api.create({ ...valid(), tc_no: tcNo });
    await dashboard.update('members', holder.body.data.id, { is_deleted: 1 });
    const lastNo = async () =>
      Number(
        (
          await dashboard.query('SELECT last_no FROM member_counters WHERE branch_id = ?', [branch])
        )[0]!.last_no,
      );
    const members = async () =>
      Number((await dashboard.query('SELECT COUNT(*) AS n FROM members'))[0]!.n);
    const [numbered, counted] = [await lastNo(), await members()];

    // The duplicate check skips deleted members, the unique index does not: the insert fails in
    // the trip that also carries the counter update and the COMMIT.
    const refused = await api.create({ ...valid(), tc_no: tcNo });
    expect([refused.status, refused.body.error]).toEqual([409, 'DUPLICATE']);
    expect([await lastNo(), await members()]).toEqual([numbered, counted]);

    const next = await api.create(valid());
    expect(next.body.data.member_no).toBe(
      `${String(branch).padStart(3, '0')}${String(numbered + 1).padStart(6, '0')}`,
    );
    const refusedUpdate = await api.update(next.body.data.id, { tc_no: tcNo });
    expect([refusedUpdate.status, refusedUpdate.body.error]).toEqual([409, 'DUPLICATE']);
    expect((await legacyMember(next.body.data.id)).tc_no).toBeNull();
    expect((await api.get(next.body.data.id)).body.data).toEqual(next.body.data);
  });

  it('when the member holding the phone is deleted, then the phone is free again', async () => {
    const phone = randomPhone();
    const first = await api.create({ ...valid(), phone });
    await dashboard.update('members', first.body.data.id, { is_deleted: 1 });
    expect((await api.create({ ...valid(), phone })).status).toBe(201);
  });
});

describe('ETag and If-Match', () => {
  it('when If-Match is stale, then PUT is 412 and the row is unchanged; the current one succeeds and every update changes the ETag', async () => {
    const created = await api.create(valid());
    const id = created.body.data.id as number;
    const first = created.headers.get('etag')!;
    const changed = await api.update(id, { full_name: 'Bir' }, { 'if-match': first });
    expect(changed.status).toBe(200);
    const second = changed.headers.get('etag')!;
    expect(second).not.toBe(first);
    // Within the same second (DATETIME precision), content still changes the version.
    const again = await api.update(id, { full_name: 'İki' }, { 'if-match': second });
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).not.toBe(second);

    const before = await legacyMember(id);
    const stale = await api.update(id, { full_name: 'Üç' }, { 'if-match': first });
    expect([stale.status, stale.body.error]).toEqual([412, 'PRECONDITION_FAILED']);
    expect(await legacyMember(id)).toEqual(before);
    const read = await api.get(id);
    expect(read.headers.get('etag')).toBe(again.headers.get('etag'));
    expect((await api.update(id, { address: 'x' }, { 'if-match': `W/${first}` })).status).toBe(412);
    expect((await api.update(id, { address: 'x' })).status).toBe(200);
  });
});

describe('If-None-Match', () => {
  it('when it names the current ETag, then GET answers 304 without a body; another gets the member', async () => {
    const created = await api.create(valid());
    const current = (await api.get(created.body.data.id)).headers.get('etag')!;
    const read = (tag: string) =>
      fetch(`${gateway.url}/api/v1/members/${created.body.data.id}`, {
        // fetch adds Cache-Control: no-cache to a conditional request unless one is given, and
        // no-cache asks for the whole answer; a partner's HTTP client sends none.
        headers: {
          authorization: `Bearer ${token}`,
          'if-none-match': tag,
          'cache-control': 'max-age=0',
        },
      });
    const unchanged = await read(current);
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');
    const changed = await read('"an-older-version"');
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe(current);
    expect(((await changed.json()) as { data: { id: number } }).data.id).toBe(created.body.data.id);
  });
});

describe('a client bound to a branch', () => {
  it('when it creates in another branch, then 403; when it updates a foreign member, then 404', async () => {
    const bound = await createTestClient(gateway.db, {
      scopes: ['members:write'],
      branchId: branch,
    });
    const boundApi = memberApi(gateway.url, await issueToken(gateway, bound));
    const foreign = await api.create({ ...valid(), branch_id: otherBranch });
    const refused = await boundApi.create({ ...valid(), branch_id: otherBranch });
    expect([refused.status, refused.body.error]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    const hidden = await boundApi.update(foreign.body.data.id, { full_name: 'X' });
    expect([hidden.status, hidden.body.error]).toEqual([404, 'NOT_FOUND']);
    expect((await legacyMember(foreign.body.data.id)).full_name).toBe('Can');
    expect((await boundApi.create(valid())).status).toBe(201);
  });
});

describe('the audit trail', () => {
  it('when writes succeed or fail, then each is recorded with client, request id, member and fields, and npm run audit prints them', async () => {
    const created = await api.create(valid(), { 'x-request-id': 'audit-create-1' });
    const id = created.body.data.id as number;
    await api.update(id, { full_name: 'Deniz' }, { 'x-request-id': 'audit-update-1' });
    const stale = await api.update(id, { full_name: 'Ece' }, { 'if-match': '"stale"' });
    expect(stale.status).toBe(412);
    const rows = await gateway.db.memberWriteAudit.findMany({
      where: { member_id: id },
      orderBy: { id: 'asc' },
    });
    expect(rows.map((r) => [r.operation, r.status, r.error])).toEqual([
      ['create', 201, null],
      ['update', 200, null],
      ['update', 412, 'PRECONDITION_FAILED'],
    ]);
    expect(rows[0]!.request_id).toBe('audit-create-1');
    const { stdout } = await run(
      'npm',
      ['run', '--silent', 'audit', '--', '--member', String(id)],
      {
        env: { ...process.env, DATABASE_URL: env.databaseUrl },
      },
    );
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain('audit-update-1');
    expect(lines[1]).toContain('full_name: "Can" -> "Deniz"');
    expect(lines[2]).toContain('412 PRECONDITION_FAILED');
    expect(rows[1]).toMatchObject({
      request_id: 'audit-update-1',
      before: expect.objectContaining({ full_name: 'Can' }),
      after: expect.objectContaining({ full_name: 'Deniz' }),
    });
  });
});

describe('the legacy schema', () => {
  it('when the write suite has run, then the legacy schema is exactly as before', async () => {
    expect(await legacySchemaSnapshot(dashboard)).toBe(schemaBefore);
  });
});
