// The dashboard's MariaDB stopped under load, on a private server: the API reads only its own
// read model, so every read is served; the worker's sync fails quietly meanwhile and resumes
// alone, with zero differences and valid credentials getting a token at once.
// The outage lasts OUTAGE_MS (8 s in the suite; RESILIENCE_OUTAGE_MS=20000 for the full figure).
// With each sync source: a binary log follower reconnects from its stored position.
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
  type TestClient,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { OUTAGE_MS, pause, startLoad } from '../support/load.js';
import { SpareMariaDb } from '../support/spare-mariadb.js';
import { verifyEnvironment } from '../support/verify.js';
import { eventually } from '../support/eventually.js';
import { startWorker } from '../support/worker.js';

let server: SpareMariaDb;
let env: TestEnvironment;
let gateway: RunningGateway;
let worker: Awaited<ReturnType<typeof startWorker>>;
let client: TestClient;
let memberId: number;
let branchId: number;

describe.each(SYNC_SOURCES)('with SYNC_SOURCE=%s', (source) => {
  beforeAll(async () => {
    server = await SpareMariaDb.start({ binaryLog: source === 'binlog' });
    env = await createTestEnvironment({ syncSource: source, mariadb: server });
    gateway = await startGateway(env, {
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_PER_HOUR: '1000000',
      RATE_LIMIT_PER_DAY: '1000000',
    });
    worker = await startWorker(env);
    client = await createTestClient(gateway.db);
    const dashboard = await LegacyDashboard.connect(env.legacyUrl);
    branchId = await dashboard.insertBranch();
    memberId = await dashboard.insertMember({ branch_id: branchId });
    await dashboard.close();
    await synced(memberId);
  }, 120_000);

  afterAll(async () => {
    await worker?.close();
    await gateway?.close();
    await env?.destroy().catch(() => undefined);
    await server?.destroy();
  });

  async function synced(id: number): Promise<void> {
    await eventually(
      async () => expect(await gateway.db.member.findUnique({ where: { id } })).not.toBeNull(),
      15_000,
    );
  }

  describe('MariaDB stopped under load', () => {
    it('when the legacy database is down, then every read is served and the sync resumes alone', async () => {
      const token = await issueToken(gateway, client);
      const auth = () => ({ headers: { authorization: `Bearer ${token}` } });
      const traffic = startLoad(gateway.url, [
        { path: '/api/v1/members', init: auth },
        { path: `/api/v1/members/${memberId}`, init: auth },
      ]);
      await pause(1000);
      await server.stop();
      await pause(OUTAGE_MS);
      await server.start();
      await pause(1000);
      const outcomes = await traffic.stop();

      expect(outcomes.length).toBeGreaterThan(50);
      expect(outcomes.filter((o) => o.status !== 200)).toEqual([]);

      const dashboard = await LegacyDashboard.connect(env.legacyUrl);
      const added = await dashboard.insertMember({ branch_id: branchId });
      await dashboard.close();
      await synced(added);
      expect((await verifyEnvironment(env)).reports).toEqual([]);
      await issueToken(gateway, client);
    }, 90_000);
  });
});
