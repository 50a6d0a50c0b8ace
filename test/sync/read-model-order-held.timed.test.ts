// The read model never goes back in time (read-model/read-order.ts), with the interleaving driven
// directly: a sync's read held between the legacy read and its write while a newer version is
// written, then released; the newer version stands. With each sync source (docs/decisions/0016).
// No assertion here times anything; the rounds a partner makes with the worker running are
// read-model-order.test.ts's, in the timed group.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLegacyClient } from '#common/legacy-database.js';
import { syncTableNamed } from '#read-model/tables/index.js';
import type { SyncTable } from '#read-model/table-definition.js';
import { reconcileTable } from '../../worker/src/sync/reconcile.js';
import type { SyncDatabases } from '../../worker/src/sync/sync-databases.js';
import { syncTable } from '../../worker/src/sync/sync-engine.js';
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
import { syncOnce } from '../support/sync-once.js';
import { verifyEnvironment } from '../support/verify.js';

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

  /** A promise with its resolve, to hold a read until the test lets it go. */
  function gate() {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { open, opened };
  }

  /**
   * Runs `run` with the databases of a worker whose next legacy read of `table` is held after it
   * has read, until `meanwhile` (called once the read is held) has finished.
   */
  async function withReadHeld<T>(
    table: SyncTable,
    run: (db: SyncDatabases) => Promise<T>,
    meanwhile: () => Promise<void>,
  ): Promise<T> {
    const legacy = createLegacyClient(env.legacyReadOnlyUrl, { poolSize: 2 });
    const held = gate();
    const release = gate();
    let holding = true;
    const db: SyncDatabases = {
      legacy,
      readModel: gateways[0]!.db,
      afterRead: async (read) => {
        if (read.name !== table.name || !holding) return;
        holding = false;
        held.open();
        await release.opened;
      },
    };
    try {
      const running = run(db);
      await Promise.race([held.opened, running]);
      expect(holding).toBe(false);
      await meanwhile();
      release.open();
      return await running;
    } finally {
      await legacy.$disconnect();
    }
  }

  const readModelRow = async (table: string, id: number) => {
    const [row] = await gateways[0]!.db.$queryRawUnsafe<Record<string, unknown>[]>(
      `SELECT * FROM ${table} WHERE id = $1`,
      id,
    );
    return row;
  };

  async function reconcileWhole(table: SyncTable, db: SyncDatabases) {
    let slice;
    do slice = await reconcileTable(table, db);
    while (!slice.passFinished);
  }

  describe('a read held open while a newer version is written', () => {
    it('when a poll read members before a partner update and writes after it, then the update stands, also after the next poll, the look-back and a reconciliation pass', async () => {
      const members = syncTableNamed('members');
      const id = await createMember();
      await dashboard.update('members', id, { address: 'Panodan' });
      await syncOnce(env);
      expect((await apis[0]!.get(id)).body.data.address).toBe('Panodan');

      // The poll re-reads the member (changed within the look-back) and is held with 'Panodan'.
      await withReadHeld(
        members,
        (db) => syncTable(members, db),
        async () => {
          const put = await apis[0]!.update(id, { address: 'Ortaktan' });
          expect(put.status).toBe(200);
        },
      );
      expect((await apis[1]!.get(id)).body.data.address).toBe('Ortaktan');

      // The next poll and its look-back re-read the member: the newer copy stands.
      await syncOnce(env);
      const legacy = createLegacyClient(env.legacyReadOnlyUrl, { poolSize: 2 });
      try {
        await reconcileWhole(members, { legacy, readModel: gateways[0]!.db });
      } finally {
        await legacy.$disconnect();
      }
      expect((await apis[1]!.get(id)).body.data.address).toBe('Ortaktan');
      expect((await verifyEnvironment(env)).reports).toEqual([]);
    });

    it('when a reconciliation read a notification before a newer version was written, then the newer stands (a table without updated_at)', async () => {
      const notifications = syncTableNamed('notifications');
      const id = await dashboard.insert('notifications', {
        branch_id: branchId,
        title: 'Eski',
        message: 'Eski',
      });
      await syncOnce(env);
      expect((await readModelRow('notifications', id))?.title).toBe('Eski');
      await dashboard.query('UPDATE notifications SET title = ? WHERE id = ?', ['Orta', id]);

      // A repair reads 'Orta' and is held; meanwhile the row becomes 'Yeni' and another pass
      // writes it.
      await withReadHeld(
        notifications,
        (db) => reconcileWhole(notifications, db),
        async () => {
          await dashboard.query('UPDATE notifications SET title = ? WHERE id = ?', ['Yeni', id]);
          const legacy = createLegacyClient(env.legacyReadOnlyUrl, { poolSize: 2 });
          try {
            await reconcileWhole(notifications, { legacy, readModel: gateways[0]!.db });
          } finally {
            await legacy.$disconnect();
          }
          expect((await readModelRow('notifications', id))?.title).toBe('Yeni');
        },
      );
      expect((await readModelRow('notifications', id))?.title).toBe('Yeni');
      await syncOnce(env);
      expect((await readModelRow('notifications', id))?.title).toBe('Yeni');
      expect((await verifyEnvironment(env)).reports).toEqual([]);
    });

    it('when a poll read a member before the dashboard deleted it and a repair applied the delete, then the member does not come back', async () => {
      const members = syncTableNamed('members');
      const id = await createMember();
      await dashboard.update('members', id, { address: 'Silinmeden önce' });
      await syncOnce(env);

      // The poll re-reads the live member and is held; meanwhile the dashboard soft-deletes it and
      // a reconciliation pass deletes it from the read model.
      await withReadHeld(
        members,
        (db) => syncTable(members, db),
        async () => {
          await dashboard.query('UPDATE members SET is_deleted = 1 WHERE id = ?', [id]);
          const legacy = createLegacyClient(env.legacyReadOnlyUrl, { poolSize: 2 });
          try {
            await reconcileWhole(members, { legacy, readModel: gateways[0]!.db });
          } finally {
            await legacy.$disconnect();
          }
          expect(await readModelRow('members', id)).toBeUndefined();
        },
      );
      expect(await readModelRow('members', id)).toBeUndefined();
      expect((await apis[0]!.get(id)).status).toBe(404);
      await syncOnce(env);
      expect((await verifyEnvironment(env)).reports).toEqual([]);
    });
  });
});
