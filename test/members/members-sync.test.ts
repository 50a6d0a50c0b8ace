// The first slice end to end: the dashboard writes a member, the worker syncs it, a partner
// reads it through the gateway. With each sync source.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestEnvironment,
  SYNC_SOURCES,
  type TestEnvironment,
} from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { NO_RATE_LIMIT } from '../support/read-fixture.js';
import { eventually } from '../support/eventually.js';
import { startWorker } from '../support/worker.js';

let env: TestEnvironment;
let gateway: RunningGateway;
let worker: Awaited<ReturnType<typeof startWorker>>;
let dashboard: LegacyDashboard;
let token: string;
let branchId: number;

describe.each(SYNC_SOURCES)('with SYNC_SOURCE=%s', (source) => {
  beforeAll(async () => {
    env = await createTestEnvironment({ syncSource: source });
    dashboard = await LegacyDashboard.connect(env.legacyUrl);
    branchId = await dashboard.insertBranch({ name: 'Kadıköy' });
    // The polls below are many requests for one client within a minute; limits are not tested here.
    gateway = await startGateway(env, NO_RATE_LIMIT);
    worker = await startWorker(env);
    token = await issueToken(gateway, await createTestClient(gateway.db));
  });

  afterAll(async () => {
    await worker?.close();
    await gateway?.close();
    await dashboard?.close();
    await env?.destroy();
  });

  const member = async (id: number) =>
    getJson(`${gateway.url}/api/v1/members/${id}`, bearer(token));
  const list = async (query = '') =>
    getJson(`${gateway.url}/api/v1/members?limit=200${query}`, bearer(token));

  describe('members, from the dashboard to the partner', () => {
    let memberId: number;

    it('when the dashboard inserts a member, then it is served within 5 s with API-ready values', async () => {
      memberId = await dashboard.insertMember({
        branch_id: branchId,
        full_name: 'İsmail',
        surname: 'Işık',
        phone: '05321234567',
        email: 'ismail@example.com',
        gender: 'Erkek',
        birth_date: '1990-05-06',
        balance: 125.5,
        entry_status: 1,
        freeze_status: 0,
        registered_at: '2026-01-15 10:00:00',
        created_at: '2026-01-15 10:00:00',
      });
      const { body, headers } = await eventually(async () => {
        const response = await member(memberId);
        expect(response.status).toBe(200);
        return response;
      });
      expect(body.success).toBe(true);
      expect(body.data).toMatchObject({
        id: memberId,
        full_name: 'İsmail',
        surname: 'Işık',
        phone: '05321234567',
        branch_id: branchId,
        branch_name: 'Kadıköy',
        gender: 'Erkek',
        birth_date: '1990-05-06',
        balance: 125.5,
        entry_status: true,
        freeze_status: false,
        // Legacy DATETIME is Istanbul wall-clock time: 10:00 there is 07:00 UTC.
        registered_at: '2026-01-15T07:00:00.000Z',
        created_at: '2026-01-15T07:00:00.000Z',
      });
      const [legacyRow] = await dashboard.query<{ updated_at: string }>(
        "SELECT DATE_FORMAT(updated_at, '%Y-%m-%d %H:%i:%s') AS updated_at FROM members WHERE id = ?",
        [memberId],
      );
      const expectedUpdatedAt = new Date(`${legacyRow!.updated_at.replace(' ', 'T')}+03:00`);
      expect(body.data.updated_at).toBe(expectedUpdatedAt.toISOString());
      expect(Number(headers.get('x-data-age'))).toBeGreaterThanOrEqual(0);

      const listed = await list();
      expect(listed.body.data.map((m: { id: number }) => m.id)).toContain(memberId);
      expect(listed.body.pagination).toEqual({ page: 1, limit: 200, total: 1, total_pages: 1 });
    });

    it('when the dashboard updates the member, then the change shows within 5 s', async () => {
      await dashboard.update('members', memberId, { phone: '05329876543', freeze_status: 1 });
      await eventually(async () => {
        const { body } = await member(memberId);
        expect(body.data).toMatchObject({ phone: '05329876543', freeze_status: true });
      });
    });

    it('when its branch is renamed, then branch_name follows within 5 s', async () => {
      await dashboard.update('branches', branchId, { name: 'Moda' });
      await eventually(async () => {
        const { body } = await member(memberId);
        expect(body.data.branch_name).toBe('Moda');
      });
    });

    it('when an update commits with an updated_at older than the worker position, then it still arrives', async () => {
      // The worker first sees a change stamped "now", so the late one is older than its position.
      await dashboard.update('members', memberId, { address: 'Moda Cad. 1' });
      await eventually(async () => {
        const { body } = await member(memberId);
        expect(body.data.address).toBe('Moda Cad. 1');
      });
      await dashboard.query(
        'UPDATE members SET surname = ?, updated_at = NOW() - INTERVAL 4 SECOND WHERE id = ?',
        ['Geç', memberId],
      );
      await eventually(async () => {
        const { body } = await member(memberId);
        expect(body.data.surname).toBe('Geç');
      });
    });

    it('when the member is soft-deleted, then it vanishes from list and detail', async () => {
      await dashboard.update('members', memberId, { is_deleted: 1 });
      await eventually(async () => {
        const { status, body } = await member(memberId);
        expect(status).toBe(404);
        expect(body).toMatchObject({ success: false, error: 'NOT_FOUND' });
      });
      const listed = await list();
      expect(listed.body.data.map((m: { id: number }) => m.id)).not.toContain(memberId);
    });
  });
});
