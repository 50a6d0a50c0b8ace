// The read model never goes back in time: a partner's own update is never undone by a sync that
// read the row before it (read-model/read-order.ts), as a partner sees it with the worker running:
// hundreds of rounds of read, update and read again (spanning dozens of the worker's polls), within
// a bound on the time (so this file runs in the timed group). With each sync source: the binary log's rows are read again and written in
// the same order (docs/decisions/0016). The interleaving driven directly:
// read-model-order-held.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestEnvironment,
  SYNC_SOURCES,
  type TestEnvironment,
} from '../support/environment.js';
import {
  createTestClient,
  issueToken,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { memberApi, randomPhone, type MemberApi } from '../support/member-writes.js';
import { verifyEnvironment } from '../support/verify.js';
import { eventually } from '../support/eventually.js';
import { startWorker } from '../support/worker.js';

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let gateways: RunningGateway[];
/** One client, on each gateway. */
let apis: MemberApi[];
let branchId: number;

describe.each(SYNC_SOURCES)('with SYNC_SOURCE=%s', (source) => {
  beforeAll(async () => {
    env = await createTestEnvironment({ syncSource: source });
    dashboard = await LegacyDashboard.connect(env.legacyUrl);
    branchId = await dashboard.insertBranch();
    const overrides = {
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_PER_HOUR: '1000000',
      RATE_LIMIT_PER_DAY: '1000000',
    };
    gateways = [await startGateway(env, overrides), await startGateway(env, overrides)];
    const client = await createTestClient(gateways[0]!.db, {
      scopes: ['members:read', 'members:write'],
    });
    const token = await issueToken(gateways[0]!, client);
    apis = gateways.map((g) => memberApi(g.url, token));
  });

  afterAll(async () => {
    await Promise.all((gateways ?? []).map((g) => g.close()));
    await dashboard?.close();
    await env?.destroy();
  });

  async function createMember(): Promise<number> {
    const created = await apis[0]!.create({
      full_name: 'Sıralı',
      phone: randomPhone(),
      branch_id: branchId,
    });
    expect(created.status).toBe(201);
    return created.body.data.id as number;
  }

  interface Rounds {
    rounds: number;
    /** Reads after a successful update that showed another address, and 412s nobody caused. */
    anomalies: string[];
    /**
     * Updates answered `X-Read-Model: pending`: the dashboard holds the write and the read model
     * follows (the member write's contract), so the read after it may still show the one before.
     */
    pending: number;
  }

  /** The bound on a test's rounds: a machine that cannot make them in this time fails the test. */
  const ROUNDS_WITHIN_MS = 50_000;

  /**
   * GET, PUT with If-Match of that GET's ETag, GET again, `rounds` times (or until
   * ROUNDS_WITHIN_MS has passed): `put` and `get` choose the gateway of each call. Nobody else
   * writes the member.
   */
  async function roundsOn(
    id: number,
    rounds: number,
    via: { put: () => MemberApi; get: () => MemberApi },
  ): Promise<Rounds> {
    const result: Rounds = { rounds: 0, anomalies: [], pending: 0 };
    let current = await via.get().get(id);
    const until = Date.now() + ROUNDS_WITHIN_MS;
    while (result.rounds < rounds && Date.now() < until) {
      const address = `Adres ${id}-${result.rounds}`;
      const put = await via
        .put()
        .update(id, { address }, { 'if-match': current.headers.get('etag')! });
      result.rounds += 1;
      if (put.status !== 200) {
        result.anomalies.push(`round ${result.rounds}: PUT ${put.status} ${put.body.error}`);
        current = await via.get().get(id);
        continue;
      }
      if (put.headers.get('x-read-model') === 'pending') {
        result.pending += 1;
        current = await eventually(async () => {
          const read = await via.get().get(id);
          expect(read.body.data?.address).toBe(address);
          return read;
        });
        continue;
      }
      current = await via.get().get(id);
      const shown = current.status === 200 ? current.body.data.address : `a ${current.status}`;
      if (shown !== address) {
        result.anomalies.push(
          `round ${result.rounds}: GET after PUT showed ${shown}, not ${address}`,
        );
      }
    }
    return result;
  }

  describe('a partner updating members while the worker syncs', () => {
    it('when one member is read, updated with If-Match and read again 250 times, then no read goes back and no 412 comes without a writer', async () => {
      const id = await createMember();
      const worker = await startWorker(env, { intervalMs: 100 });
      try {
        const { rounds, anomalies, pending } = await roundsOn(id, 250, {
          put: () => apis[0]!,
          get: () => apis[0]!,
        });
        expect(anomalies.slice(0, 5)).toEqual([]);
        expect(rounds).toBe(250);
        expect(pending).toBeLessThan(rounds / 100);
      } finally {
        await worker.close();
      }
    }, 90_000);

    it('when four members are each updated through one gateway and read through the other 100 times, then the same holds', async () => {
      const ids = await Promise.all(Array.from({ length: 4 }, () => createMember()));
      const worker = await startWorker(env, { intervalMs: 100 });
      try {
        const results = await Promise.all(
          ids.map((id, i) =>
            roundsOn(id, 100, { put: () => apis[i % 2]!, get: () => apis[(i + 1) % 2]! }),
          ),
        );
        expect(results.flatMap((r) => r.anomalies).slice(0, 5)).toEqual([]);
        expect(results.map((r) => r.rounds)).toEqual([100, 100, 100, 100]);
        expect(results.every((r) => r.pending < r.rounds / 100)).toBe(true);
      } finally {
        await worker.close();
      }
      expect((await verifyEnvironment(env)).reports).toEqual([]);
    }, 90_000);
  });
});
