// The read model never goes back in time: a partner's own update is never undone by a sync that
// read the row before it (read-model/read-order.ts). First as a partner sees it, with the worker
// running; then with the interleaving driven directly: a read held between the legacy read and
// its write while a newer version is written, then released. With each sync source: the
// binary log's rows are read again and written in the same order (docs/decisions/0016).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLegacyClient } from '#common/databases.js';
import { syncTableNamed } from '#read-model/tables/index.js';
import type { SyncTable } from '#read-model/table-definition.js';
import { reconcileTable } from '../worker/src/sync/reconcile.js';
import type { SyncDatabases } from '../worker/src/sync/sync-databases.js';
import { syncTable } from '../worker/src/sync/sync-engine.js';
import {
  createTestEnvironment,
  SYNC_SOURCES,
  type TestEnvironment,
} from './support/environment.js';
import {
  createTestClient,
  issueToken,
  startGateway,
  type RunningGateway,
} from './support/gateway.js';
import { LegacyDashboard } from './support/legacy-dashboard.js';
import { memberApi, randomPhone, type MemberApi } from './support/member-writes.js';
import { syncOnce } from './support/sync-once.js';
import { verifyEnvironment } from './support/verify.js';
import { eventually, startWorker } from './support/worker.js';

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
    it('when one member is read, updated with If-Match and read again 500 times, then no read goes back and no 412 comes without a writer', async () => {
      const id = await createMember();
      const worker = await startWorker(env, { intervalMs: 100 });
      try {
        const { rounds, anomalies, pending } = await roundsOn(id, 500, {
          put: () => apis[0]!,
          get: () => apis[0]!,
        });
        expect(anomalies.slice(0, 5)).toEqual([]);
        expect(rounds).toBe(500);
        expect(pending).toBeLessThan(rounds / 100);
      } finally {
        await worker.close();
      }
    }, 90_000);

    it('when four members are each updated through one gateway and read through the other 200 times, then the same holds', async () => {
      const ids = await Promise.all(Array.from({ length: 4 }, () => createMember()));
      const worker = await startWorker(env, { intervalMs: 100 });
      try {
        const results = await Promise.all(
          ids.map((id, i) =>
            roundsOn(id, 200, { put: () => apis[i % 2]!, get: () => apis[(i + 1) % 2]! }),
          ),
        );
        expect(results.flatMap((r) => r.anomalies).slice(0, 5)).toEqual([]);
        expect(results.map((r) => r.rounds)).toEqual([200, 200, 200, 200]);
        expect(results.every((r) => r.pending < r.rounds / 100)).toBe(true);
      } finally {
        await worker.close();
      }
      expect((await verifyEnvironment(env)).total).toBe(0);
    }, 90_000);
  });

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
      expect((await verifyEnvironment(env)).total).toBe(0);
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
      expect((await verifyEnvironment(env)).total).toBe(0);
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
      expect((await verifyEnvironment(env)).total).toBe(0);
    });
  });
});
