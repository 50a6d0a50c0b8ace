// While no worker runs, the gateway's member writes still leave every list total exact, and the
// kept counts a total sums stay a bounded number of rows: the gateway folds its own deltas
// (read-model/apply-now.ts). Without that fold, each write would leave a row of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pLimit from 'p-limit';
import { readModelPool } from '#common/databases.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { memberApi, randomPhone } from '../support/member-writes.js';
import { syncOnce } from '../support/sync-once.js';

const WRITES = 1000;

let env: TestEnvironment;
let gateway: RunningGateway;
let token: string;
const branches: number[] = [];

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  try {
    for (let i = 0; i < 2; i++) branches.push(await dashboard.insertBranch());
  } finally {
    await dashboard.close();
  }
  await syncOnce(env);
  gateway = await startGateway(env, {
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_PER_HOUR: '1000000',
    RATE_LIMIT_PER_DAY: '1000000',
  });
  token = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: ['members:list', 'members:write'] }),
  );
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

describe('kept counts with no worker running', () => {
  it(`when ${WRITES} members are written, then the totals are exact and the kept rows a total sums stay few`, async () => {
    const api = memberApi(gateway.url, token);
    const limit = pLimit(8);
    const statuses = await Promise.all(
      Array.from({ length: WRITES }, (_, i) =>
        limit(async () => {
          const body = {
            full_name: 'Ayşe',
            surname: `Yılmaz ${i}`,
            phone: randomPhone(),
            branch_id: branches[i % 2]!,
          };
          return (await api.create(body)).status;
        }),
      ),
    );
    expect(statuses.filter((s) => s !== 201)).toEqual([]);

    const total = async (query: string) => {
      const answer = await getJson(`${gateway.url}/api/v1/members?${query}`, bearer(token));
      expect(answer.status, `${query} ${JSON.stringify(answer.body)}`).toBe(200);
      return answer.body.pagination.total as number;
    };
    expect(await total('limit=1')).toBe(WRITES);
    expect(await total(`limit=1&branch_id=${branches[0]}`)).toBe(WRITES / 2);
    expect(await total(`limit=1&branch_id=${branches[1]}&status=active`)).toBe(WRITES / 2);

    // Folded every 100 rows: at most that many deltas, and a few more from writes racing the
    // last fold, beside one row per group; unfolded there would be one row per write.
    const { rows } = await readModelPool(gateway.db).query<{ n: string }>(
      `SELECT count(*) AS n FROM kept_totals WHERE table_name = 'members'`,
    );
    expect(Number(rows[0]!.n)).toBeLessThanOrEqual(150);
  }, 240_000);
});
