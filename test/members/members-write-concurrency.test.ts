// Member writes racing each other across two gateway instances: the dashboard's duplicate rule
// and numbering hold, and Idempotency-Key makes a retried create write once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  createTestClient,
  issueToken,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { memberApi, randomPhone, randomTcNo, type MemberApi } from '../support/member-writes.js';

let env: TestEnvironment;
let gateways: RunningGateway[];
let dashboard: LegacyDashboard;
/** The same client on each of the two gateways. */
let apis: MemberApi[];
let otherClientApi: MemberApi;

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  const overrides = { RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_HOUR: '100000' };
  gateways = [await startGateway(env, overrides), await startGateway(env, overrides)];
  const client = await createTestClient(gateways[0]!.db, { scopes: ['members:write'] });
  const token = await issueToken(gateways[0]!, client);
  apis = gateways.map((g) => memberApi(g.url, token));
  const other = await createTestClient(gateways[0]!.db, { scopes: ['members:write'] });
  otherClientApi = memberApi(gateways[1]!.url, await issueToken(gateways[0]!, other));
});

afterAll(async () => {
  await Promise.all((gateways ?? []).map((g) => g.close()));
  await dashboard?.close();
  await env?.destroy();
});

/** `count` calls at once, alternating between the two gateways. */
const together = <T>(count: number, call: (api: MemberApi, i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, i) => call(apis[i % 2]!, i)));

const statuses = (results: { status: number }[]) =>
  results.map((r) => r.status).sort((a, b) => a - b);

const legacyCount = async (where: string, params: unknown[]) =>
  Number((await dashboard.query(`SELECT COUNT(*) AS n FROM members WHERE ${where}`, params))[0]!.n);

describe('concurrent creates', () => {
  it('when 10 creates with one phone hit one branch at once, then exactly one is 201 and nine are 409', async () => {
    const branch = await dashboard.insertBranch();
    const phone = randomPhone();
    const results = await together(10, (api) =>
      api.create({ full_name: 'Aynı', phone, branch_id: branch }),
    );
    expect(statuses(results)).toEqual([201, ...Array(9).fill(409)]);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.error === 'DUPLICATE')).toBe(
      true,
    );
    expect(await legacyCount('phone = ?', [phone])).toBe(1);
  });

  it('when 10 creates with one tc_no hit ten branches at once, then exactly one is 201', async () => {
    const branches = await Promise.all(Array.from({ length: 10 }, () => dashboard.insertBranch()));
    const tcNo = randomTcNo();
    const results = await together(10, (api, i) =>
      api.create({ full_name: 'Aynı', phone: randomPhone(), tc_no: tcNo, branch_id: branches[i]! }),
    );
    expect(statuses(results)).toEqual([201, ...Array(9).fill(409)]);
    expect(await legacyCount('tc_no = ?', [tcNo])).toBe(1);
  });

  it('when 50 distinct creates hit one branch at once, then they get 50 consecutive numbers', async () => {
    const branch = await dashboard.insertBranch();
    const results = await together(50, (api) =>
      api.create({ full_name: 'Sıra', phone: randomPhone(), branch_id: branch }),
    );
    expect(statuses(results)).toEqual(Array(50).fill(201));
    const numbers = results.map((r) => Number(String(r.body.data.member_no).slice(3)));
    expect(numbers.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('when two members are updated into one phone at once, then one succeeds and one is 409', async () => {
    const branch = await dashboard.insertBranch();
    const [a, b] = await Promise.all(
      [0, 1].map((i) =>
        apis[i]!.create({ full_name: 'İki', phone: randomPhone(), branch_id: branch }),
      ),
    );
    const phone = randomPhone();
    const tcNo = randomTcNo();
    const results = await Promise.all([
      apis[0]!.update(a!.body.data.id, { phone, tc_no: tcNo }),
      apis[1]!.update(b!.body.data.id, { phone, tc_no: tcNo }),
    ]);
    expect(statuses(results)).toEqual([200, 409]);
    expect(await legacyCount('phone = ? OR tc_no = ?', [phone, tcNo])).toBe(1);
  });
});

describe('Idempotency-Key', () => {
  it('when a create is retried with its key, then the answer is replayed and legacy holds one row', async () => {
    const branch = await dashboard.insertBranch();
    const body = { full_name: 'Tekrar', phone: randomPhone(), branch_id: branch };
    const key = { 'idempotency-key': `k-${randomPhone()}` };
    const first = await apis[0]!.create(body, key);
    const replay = await apis[1]!.create(
      { branch_id: branch, phone: body.phone, full_name: 'Tekrar' },
      key,
    );
    expect(first.status).toBe(201);
    expect([replay.status, replay.body]).toEqual([201, first.body]);
    expect(replay.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(await legacyCount('phone = ?', [body.phone])).toBe(1);

    const changed = await apis[0]!.create({ ...body, full_name: 'Başka' }, key);
    expect([changed.status, changed.body.error, changed.body.details?.[0]?.field]).toEqual([
      400,
      'VALIDATION_ERROR',
      'Idempotency-Key',
    ]);
    expect(await legacyCount('branch_id = ?', [branch])).toBe(1);
    // Another client's identical key is its own.
    expect((await otherClientApi.create({ ...body, phone: randomPhone() }, key)).status).toBe(201);
  });

  it('when requests with one key arrive at once, then one writes and the others are 409 with Retry-After or replays', async () => {
    const branch = await dashboard.insertBranch();
    const body = { full_name: 'Eşzamanlı', phone: randomPhone(), branch_id: branch };
    const key = { 'idempotency-key': `c-${randomPhone()}` };
    const results = await together(6, (api) => api.create(body, key));
    for (const r of results.filter((x) => x.status === 409)) {
      expect([r.body.error, r.headers.get('retry-after')]).toEqual(['DUPLICATE', '1']);
    }
    expect(results.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    expect(await legacyCount('branch_id = ?', [branch])).toBe(1);
  });

  it('when the key is longer than 255 characters, then it is 400 and nothing is written', async () => {
    const branch = await dashboard.insertBranch();
    const { status, body } = await apis[0]!.create(
      { full_name: 'Uzun', phone: randomPhone(), branch_id: branch },
      { 'idempotency-key': 'x'.repeat(256) },
    );
    expect([status, body.details?.[0]?.field]).toEqual([400, 'Idempotency-Key']);
    expect(await legacyCount('branch_id = ?', [branch])).toBe(0);
  });
});
