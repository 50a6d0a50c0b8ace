// The branch rule is declared once, in the table declarations (read-model/tables/, `branch`), and
// every read path derives its condition from there (api/branch-rule.ts). So taking one table's
// declaration away, or flipping what a row without a branch means, breaks the rule on every path
// at once: lists, details, statistics, kept totals and the change feed. A path with a condition of
// its own would stay right here and show up as missing from the failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '#api/scopes.js';
import { membersTable } from '#read-model/tables/members.table.js';
import { notificationsTable } from '#read-model/tables/notifications.table.js';
import type { SyncTable } from '#read-model/table-definition.js';
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
import { NO_RATE_LIMIT } from '../support/read-fixture.js';
import { syncOnce } from '../support/sync-once.js';
import { eventually } from '../support/eventually.js';

let env: TestEnvironment;
let own: number;
let foreign: number;
const members = { own: [] as number[], foreign: [] as number[] };
const notifications = { own: 0, foreign: 0, everyBranch: 0 };

beforeAll(async () => {
  env = await createTestEnvironment();
  const dashboard = await LegacyDashboard.connect(env.legacyUrl);
  try {
    own = await dashboard.insertBranch();
    foreign = await dashboard.insertBranch();
    for (let i = 0; i < 2; i++) members.own.push(await dashboard.insertMember({ branch_id: own }));
    for (let i = 0; i < 3; i++) {
      members.foreign.push(await dashboard.insertMember({ branch_id: foreign }));
    }
    notifications.own = await dashboard.insertNotification({ branch_id: own });
    notifications.foreign = await dashboard.insertNotification({ branch_id: foreign });
    notifications.everyBranch = await dashboard.insertNotification({ branch_id: null });
  } finally {
    await dashboard.close();
  }
  await syncOnce(env);
  await feedShowsEverything();
});

afterAll(async () => {
  await env?.destroy();
});

/**
 * The read paths that break the branch rule for a client bound to `own`, each probed through the
 * HTTP API of a gateway started with the declarations as they are at that moment.
 */
async function brokenPaths(): Promise<{ members: string[]; notifications: string[] }> {
  const gateway: RunningGateway = await startGateway(env, NO_RATE_LIMIT);
  try {
    const token = await issueToken(
      gateway,
      await createTestClient(gateway.db, { scopes: [...SCOPES], branchId: own }),
    );
    const get = (path: string) => getJson(`${gateway.url}/api/v1${path}`, bearer(token));
    const ids = (body: Record<string, any>) => (body.data as { id: number }[]).map((row) => row.id);
    const feedIds = async (type: string) => {
      const feed = await get(`/changes?types=${type}&limit=1000`);
      expect(feed.status).toBe(200);
      return ids(feed.body);
    };

    const broken = { members: [] as string[], notifications: [] as string[] };
    const memberList = await get('/members?limit=200');
    if (ids(memberList.body).some((id) => members.foreign.includes(id))) {
      broken.members.push('list');
    }
    if (memberList.body.pagination.total !== members.own.length) broken.members.push('kept total');
    if ((await get(`/members/${members.foreign[0]}`)).status !== 404) {
      broken.members.push('detail');
    }
    const stats = await get('/dashboard/stats');
    if (stats.body.data.total_members !== members.own.length) broken.members.push('statistics');
    if ((await feedIds('members')).some((id) => members.foreign.includes(id))) {
      broken.members.push('change feed');
    }

    const seen = [notifications.own, notifications.everyBranch].sort();
    const notificationList = await get('/notifications?limit=200');
    const listed = ids(notificationList.body).sort();
    if (listed.join() !== seen.join()) broken.notifications.push('list');
    if (notificationList.body.pagination.total !== seen.length) {
      broken.notifications.push('total');
    }
    if ((await feedIds('notifications')).sort().join() !== seen.join()) {
      broken.notifications.push('change feed');
    }
    return broken;
  } finally {
    await gateway.close();
  }
}

/**
 * Waits until an unbound client's change feed shows every row synced above. The feed shows a
 * transaction once every older one on the server has ended, and other files' transactions share
 * the server: a probe must not take a feed that has not caught up for a broken rule.
 */
async function feedShowsEverything(): Promise<void> {
  const gateway = await startGateway(env, NO_RATE_LIMIT);
  try {
    const token = await issueToken(
      gateway,
      await createTestClient(gateway.db, { scopes: [...SCOPES] }),
    );
    const count = async (type: string) => {
      const feed = await getJson(
        `${gateway.url}/api/v1/changes?types=${type}&limit=1000`,
        bearer(token),
      );
      return (feed.body.data as unknown[] | undefined)?.length;
    };
    const everyMember = members.own.length + members.foreign.length;
    await eventually(async () => {
      expect([await count('members'), await count('notifications')]).toEqual([everyMember, 3]);
    }, 20_000);
  } finally {
    await gateway.close();
  }
}

/** Runs `probe` with `table`'s branch rule replaced by `rule`, restoring it afterwards. */
async function withRule<T>(table: SyncTable, rule: SyncTable['branch'], probe: () => Promise<T>) {
  const declared = table.branch;
  table.branch = rule;
  try {
    return await probe();
  } finally {
    table.branch = declared;
  }
}

describe('the branch rule, declared once', () => {
  it('when the declarations are as written, then no read path lets a bound client out', async () => {
    expect(await brokenPaths()).toEqual({ members: [], notifications: [] });
  });

  it("when members' declaration is taken away, then every read path of members breaks at once", async () => {
    const broken = await withRule(membersTable, undefined, brokenPaths);
    expect(broken.members.sort()).toEqual(
      ['change feed', 'detail', 'kept total', 'list', 'statistics'].sort(),
    );
    expect(broken.notifications).toEqual([]);
  });

  it("when notifications without a branch stop being every branch's, then every read path of notifications changes at once", async () => {
    const broken = await withRule(notificationsTable, { column: 'branch_id' }, brokenPaths);
    expect(broken.notifications.sort()).toEqual(['change feed', 'list', 'total'].sort());
    expect(broken.members).toEqual([]);
  });
});
