// Usage reports (docs/decisions/0015-usage-reports.md): 1,000 requests of three clients, some
// refused by their limits and some not found, sent through two gateways on one Redis, are counted
// exactly once the worker has merged them, and reported by GET /usage to their own client only
// and by `npm run usage` to operators.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { cellFields, LATENCY_BUCKETS, usageKeys } from '#api/usage/usage-cells.js';
import { throttledLog } from '#common/log-throttle.js';
import { createRedis, type RedisClient } from '#common/redis.js';
import { mergeUsage, startUsageMerge } from '../../worker/src/usage/usage-merge.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
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
import { operatorCli } from '../support/operator-cli.js';
import { runLogger } from '../support/run-logs.js';
import { eventually } from '../support/eventually.js';

let env: TestEnvironment;
let a: RunningGateway;
let b: RunningGateway;
let workerRedis: RedisClient;
let merging: { stop(): Promise<void> } | undefined;
let one: TestClient;
let two: TestClient;
let three: TestClient;
let oneToken: string;
let twoToken: string;
/** Bytes of the bodies `one` received from GET /members. */
let oneListBytes = 0;

type Row = Record<string, any>;

const SETTINGS = { USAGE_FLUSH_INTERVAL_MS: '250' };
/** Requests in flight at once while the counted requests are sent. */
const CONCURRENCY = 16;
/** two's reads and three's, with three's per-minute limit: 1,000 requests in all (see below). */
const TWO_READS = 644;
const THREE_READS = 300;
const THREE_PER_MINUTE = 200;
const UNKNOWN_PATHS = 20;
const log = () => throttledLog(runLogger(inject('services').runId, 'usage-test'));

/** Alternates between the two gateways. */
const via = (i: number) => (i % 2 === 0 ? a : b);

/** `count` calls of `send`, CONCURRENCY at a time; their statuses in the order of `i`. */
async function sendAll(count: number, send: (i: number) => Promise<number>): Promise<number[]> {
  const statuses = new Array<number>(count);
  let next = 0;
  const caller = async () => {
    while (next < count) {
      const i = next++;
      statuses[i] = await send(i);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, caller));
  return statuses;
}

const readMembers = async (i: number, token: string) =>
  (await getJson(`${via(i).url}/api/v1/members?limit=1`, bearer(token))).status;

beforeAll(async () => {
  env = await createTestEnvironment();
  [a, b] = await Promise.all([startGateway(env, SETTINGS), startGateway(env, SETTINGS)]);
  workerRedis = createRedis(env.redisUrl, { forWorker: true });
  [one, two, three] = await Promise.all([
    createTestClient(a.db, { name: 'one' }),
    // one keeps the default limits, which GET /usage reports; two's are out of the way.
    createTestClient(a.db, {
      name: 'two',
      limits: { minute: 1_000_000, hour: 1_000_000, day: 1_000_000 },
    }),
    createTestClient(a.db, {
      name: 'three',
      limits: { minute: THREE_PER_MINUTE, hour: 1000, day: 10000 },
    }),
  ]);
  oneToken = await issueToken(a, one);
  twoToken = await issueToken(b, two);
  const threeToken = await issueToken(a, three);
  for (let i = 0; i < 20; i++) {
    const answer = await getJson(`${via(i).url}/api/v1/members?limit=1`, bearer(oneToken));
    expect(answer.status).toBe(200);
    oneListBytes += Number(answer.headers.get('content-length'));
  }
  for (let i = 0; i < 10; i++) {
    const answer = await getJson(`${via(i).url}/api/v1/members/2147483000`, bearer(oneToken));
    expect(answer.status).toBe(404);
  }
  // 1,000 in all: one 31 (its token, 20 reads, 10 not found), two 646 (its token, 644 reads, a
  // standard token call), three 301 (its token, 200 reads admitted, 100 refused), none 22.
  const twoStatuses = await sendAll(TWO_READS, (i) => readMembers(i, twoToken));
  expect(twoStatuses.filter((s) => s === 200)).toHaveLength(TWO_READS);
  const threeStatuses = await sendAll(THREE_READS, (i) => readMembers(i, threeToken));
  expect(threeStatuses.filter((s) => s === 429)).toHaveLength(THREE_READS - THREE_PER_MINUTE);
  // No client: a path no operation has (even with a token), and failed credentials.
  const unknown = await sendAll(
    UNKNOWN_PATHS,
    async (i) => (await getJson(`${via(i).url}/api/v1/no-such-thing`, bearer(oneToken))).status,
  );
  expect(unknown.filter((s) => s === 404)).toHaveLength(UNKNOWN_PATHS);
  for (let i = 0; i < 2; i++) {
    const refused = await postJson(`${via(i).url}/api/v1/auth/token`, {
      client_key: one.client_key,
      client_secret: 'not-the-secret',
    });
    expect(refused.status).toBe(401);
  }
  // The standard token endpoint counts under the client that authenticated.
  const standard = await getJson(`${b.url}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${two.client_key}:${two.client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
  });
  expect(standard.status).toBe(200);
  // The worker, as main.ts starts it, merging every second.
  merging = startUsageMerge({
    readModel: a.db,
    redis: workerRedis,
    prefix: env.redisPrefix,
    intervalMs: 1000,
    log: log(),
  });
});

afterAll(async () => {
  await merging?.stop();
  await Promise.all([a?.close(), b?.close()]);
  workerRedis?.disconnect();
  await env?.destroy();
});

const usage = (token: string, query = '', gateway = a) =>
  getJson(`${gateway.url}/api/v1/usage${query}`, bearer(token));

const byOperation = (rows: Row[]) => {
  const sums: Record<string, Row> = {};
  for (const row of rows) {
    const sum = (sums[row.operation as string] ??= { requests: 0, client_errors: 0, bytes_out: 0 });
    sum.requests += row.requests;
    sum.client_errors += row.client_errors;
    sum.bytes_out += row.bytes_out;
  }
  return sums;
};

describe('counting across two gateways', () => {
  it('when the requests are over, then GET /usage reports each operation exactly within 60 s', async () => {
    const sums = await eventually(
      async () => {
        const answer = await usage(oneToken, '?group_by=operation');
        expect(answer.status).toBe(200);
        const found = byOperation(answer.body.data.rows as Row[]);
        expect(found['GET /api/v1/members']?.requests).toBe(20);
        expect(found['GET /api/v1/members/{id}']?.requests).toBe(10);
        return found;
      },
      60_000,
      500,
    );
    expect(sums['GET /api/v1/members']).toEqual({
      requests: 20,
      client_errors: 0,
      bytes_out: oneListBytes,
    });
    expect(sums['GET /api/v1/members/{id}']?.client_errors).toBe(10);
    expect(sums['POST /api/v1/auth/token']?.requests).toBe(1);
    // Only its own: not two's standard token call, not the requests no client made (its own
    // calls of GET /usage show once merged).
    const operations = Object.keys(sums).filter((operation) => operation !== 'GET /api/v1/usage');
    expect(operations.sort()).toEqual([
      'GET /api/v1/members',
      'GET /api/v1/members/{id}',
      'POST /api/v1/auth/token',
    ]);
  });

  it('when another client asks, then it sees its own counts only, whatever it names', async () => {
    const sums = await eventually(async () => {
      const answer = await usage(twoToken, `?group_by=operation&client_id=${one.id}`, b);
      const found = byOperation(answer.body.data.rows as Row[]);
      expect(found['POST /oauth/token']?.requests).toBe(1);
      return found;
    }, 60_000);
    expect(sums['GET /api/v1/members']?.requests).toBe(TWO_READS);
    expect(sums['GET /api/v1/members/{id}']).toBeUndefined();
    expect(sums['POST /api/v1/auth/token']?.requests).toBe(1);
  });

  it('when asked by status, then the rows carry the status and the latency percentiles', async () => {
    const answer = await usage(oneToken, '?group_by=status');
    const rows = answer.body.data.rows as Row[];
    const notFound = rows.filter((row) => row.status === 404);
    expect(notFound.reduce((n, row) => n + (row.requests as number), 0)).toBe(10);
    for (const row of rows) {
      expect(row.operation).toBeUndefined();
      expect(row.latency_ms.p50).toBeGreaterThanOrEqual(0);
      expect(row.latency_ms.p99).toBeGreaterThanOrEqual(row.latency_ms.p50);
    }
  });

  it('when asked, then limits and remaining are the limiter’s own, this call counted', async () => {
    const answer = await usage(oneToken);
    const { limits, remaining } = answer.body.data;
    expect(limits).toEqual({ minute: 60, hour: 1000, day: 10000 });
    expect(remaining).toEqual({
      minute: Number(answer.headers.get('x-ratelimit-remaining-minute')),
      hour: Number(answer.headers.get('x-ratelimit-remaining-hour')),
      day: Number(answer.headers.get('x-ratelimit-remaining-day')),
    });
  });

  it('when granularity=day, then periods start at UTC midnight', async () => {
    const answer = await usage(oneToken, '?granularity=day');
    expect(answer.status).toBe(200);
    expect(answer.body.data.granularity).toBe('day');
    expect(answer.body.data.from).toMatch(/T00:00:00\.000Z$/);
    for (const row of answer.body.data.rows as Row[]) {
      expect(row.period_start).toMatch(/T00:00:00\.000Z$/);
    }
  });
});

describe('bad parameters', () => {
  it.each([
    ['from=yesterday', 'from'],
    ['to=2026-11-25', 'to'],
    ['granularity=week', 'granularity'],
    ['group_by=client', 'group_by'],
    ['from=2026-11-25T10:00:00Z&to=2026-11-25T09:00:00Z', 'to'],
    ['from=2025-01-01T00:00:00Z&to=2026-02-06T00:00:00Z', 'from'],
  ])('when %s, then 400 VALIDATION_ERROR naming %s', async (query, field) => {
    const answer = await usage(oneToken, `?${query}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('VALIDATION_ERROR');
    expect((answer.body.details as { field: string }[]).map((d) => d.field)).toContain(field);
  });
});

describe('npm run usage', () => {
  const cli = (...args: string[]) => operatorCli(env, 'usage', ...args);

  it('when asked by client as JSON, then each client and the requests of none are exact', async () => {
    // The last requests may have reached the report after the ones GET /usage waited for.
    const report = await eventually(async () => {
      const read = JSON.parse(await cli('--json')) as { rows: Row[] };
      expect(read.rows.find((row) => row.client_key === '(none)')?.requests).toBe(
        UNKNOWN_PATHS + 2,
      );
      return read;
    }, 60_000);
    const of = (key: string) => report.rows.find((row) => row.client_key === key);
    // three: its token, 200 admitted and 100 refused reads.
    expect(of(three.client_key)).toMatchObject({
      client_id: three.id,
      requests: 301,
      rate_limited: 100,
      client_errors: 100,
    });
    expect(of('(none)')).toMatchObject({ client_id: null, requests: 22, client_errors: 22 });
    // two's calls of GET /usage come on top of its 646.
    expect(of(two.client_key)?.requests).toBeGreaterThanOrEqual(646);
    expect(of(one.client_key)?.requests).toBeGreaterThanOrEqual(31);
  });

  it('when asked for one client by status, then its statuses are exact', async () => {
    const report = JSON.parse(
      await cli('--client', three.client_key, '--by', 'status', '--json'),
    ) as { rows: Row[] };
    expect(report.rows.map((row) => [row.status as number, row.requests as number])).toEqual([
      [200, 201],
      [429, 100],
    ]);
  });

  it('when asked as a table or CSV, then each names its columns and rows', async () => {
    const table = await cli('--client', three.client_key, '--by', 'operation');
    expect(table).toMatch(/^OPERATION\s+REQUESTS\s+4XX\s+5XX\s+429\s+BYTES OUT\s+P50 MS/);
    expect(table).toMatch(/GET \/api\/v1\/members\s+300\s+100\s+0\s+100\s/);
    const csv = (await cli('--client', three.client_key, '--by', 'client', '--csv')).trim();
    const [header, row, ...rest] = csv.split('\n');
    expect(header).toBe(
      'client_id,client_key,requests,client_errors,server_errors,rate_limited,bytes_out,p50_ms,p95_ms,p99_ms',
    );
    expect(row).toMatch(new RegExp(`^${three.id},${three.client_key},301,100,0,100,\\d+,`));
    expect(rest).toEqual([]);
  });

  it('when the client or the grouping is unknown, then it exits 2 saying so', async () => {
    await expect(cli('--client', 'ck_nobody')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no client with key'),
    });
    await expect(cli('--by', 'branch')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--by must be one of'),
    });
  });
});

describe('exactly once', () => {
  const total = async () =>
    Number(
      (
        await a.db.$queryRaw<{ n: number }[]>`SELECT coalesce(sum(requests), 0)::float8 AS n
        FROM usage_hours WHERE client_id = ${two.id}`
      )[0]?.n,
    );

  it('when two workers merge at once and a merged batch comes back, then nothing counts twice', async () => {
    await merging?.stop();
    merging = undefined;
    // Everything counted so far, the last calls of GET /usage included, is in the table.
    await Promise.all([a.usage.flush(), b.usage.flush()]);
    await mergeUsage({ readModel: a.db, redis: workerRedis, prefix: env.redisPrefix });
    const before = await total();
    for (let i = 0; i < 10; i++) {
      expect((await getJson(`${via(i).url}/api/v1/members?limit=1`, bearer(twoToken))).status).toBe(
        200,
      );
    }
    await Promise.all([a.usage.flush(), b.usage.flush()]);
    const other = createRedis(env.redisUrl, { forWorker: true });
    try {
      await Promise.all([
        mergeUsage({ readModel: a.db, redis: workerRedis, prefix: env.redisPrefix }),
        mergeUsage({ readModel: b.db, redis: other, prefix: env.redisPrefix }),
      ]);
    } finally {
      other.disconnect();
    }
    expect(await total()).toBe(before + 10);

    // A worker that committed a batch and died before deleting it: the batch is still there.
    const keys = usageKeys(env.redisPrefix);
    const batch = keys.batch('left-behind');
    const cell = {
      hour: Date.UTC(2026, 0, 1, 0),
      clientId: two.id,
      operation: 'GET /api/v1/members',
      status: 200,
      requests: 4,
      bytesOut: 100,
      latency: new Array<number>(LATENCY_BUCKETS).fill(0).map((_, i) => (i === 1 ? 4 : 0)),
    };
    const leave = async () => {
      await workerRedis.hset(batch, Object.fromEntries(cellFields(cell)));
      await workerRedis.sadd(keys.batches, batch);
    };
    await leave();
    expect(await mergeUsage({ readModel: a.db, redis: workerRedis, prefix: env.redisPrefix })).toBe(
      1,
    );
    await leave();
    expect(await mergeUsage({ readModel: a.db, redis: workerRedis, prefix: env.redisPrefix })).toBe(
      0,
    );
    expect(await total()).toBe(before + 10 + 4);
    expect(await workerRedis.exists(batch)).toBe(0);
  });
});
