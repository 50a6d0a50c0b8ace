// Member writes send each group of statements as one text query, the values escaped into it by
// the MariaDB driver (gateway/src/features/members/legacy-connection.ts). Values full of quotes,
// backslashes, placeholders and SQL are stored verbatim and run nothing, on the shared server
// and on a server whose default sql_mode has NO_BACKSLASH_ESCAPES, where a backslash escape
// would otherwise be read as a character and the quote after it as the string's end. That server
// is a private MariaDB: the shared server's mode is never touched.
import * as mariadb from 'mariadb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyConnectionOf } from '#common/legacy-database.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { createTestClient, issueToken, startGateway } from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { memberApi, randomPhone } from '../support/member-writes.js';
import { SpareMariaDb } from '../support/spare-mariadb.js';

const HOSTILE = {
  full_name: `O'Brien \\' ; DROP TABLE members; -- ?`,
  surname: `Yol \\`,
  address: `'); UPDATE member_counters SET last_no = 0; -- "çift" İıŞş 𝕏 \\\\ ?? :name\tson`,
};
const HOSTILE_UPDATE = {
  full_name: `\\'; DELETE FROM members WHERE 1 = 1; #`,
  surname: `"'\\"`,
  address: `a\\nb\n' OR '1'='1`,
};

let spare: SpareMariaDb | undefined;
const environments: TestEnvironment[] = [];

afterAll(async () => {
  for (const env of environments) await env.destroy().catch(() => undefined);
  await spare?.destroy();
});

async function spareWithoutBackslashEscapes(): Promise<TestEnvironment> {
  spare = await SpareMariaDb.start();
  const env = await createTestEnvironment({ mariadb: spare });
  // After the dump is loaded; every session opened from now on starts in this mode.
  const root = await mariadb.createConnection(legacyConnectionOf(spare.url));
  await root.query(`SET GLOBAL sql_mode = CONCAT(@@GLOBAL.sql_mode, ',NO_BACKSLASH_ESCAPES')`);
  await root.end();
  return env;
}

describe.each([
  ['the shared server', createTestEnvironment],
  ['a server whose sql_mode has NO_BACKSLASH_ESCAPES', spareWithoutBackslashEscapes],
])('on %s', (_server, environment) => {
  let env: TestEnvironment;
  let dashboard: LegacyDashboard;

  beforeAll(async () => {
    env = await environment();
    environments.push(env);
    dashboard = await LegacyDashboard.connect(env.legacyUrl);
  }, 120_000);

  afterAll(async () => {
    await dashboard?.close();
  });

  it('when member fields hold quotes, backslashes and SQL, then create and update store them verbatim and write nothing else', async () => {
    const gateway = await startGateway(env);
    try {
      const client = await createTestClient(gateway.db, {
        scopes: ['members:read', 'members:write'],
      });
      const api = memberApi(gateway.url, await issueToken(gateway, client));
      const branch = await dashboard.insertBranch();
      const count = async () =>
        Number((await dashboard.query('SELECT COUNT(*) AS n FROM members'))[0]!.n);
      const stored = async (id: number) =>
        (
          await dashboard.query<Record<string, unknown>>(
            'SELECT full_name, surname, address FROM members WHERE id = ?',
            [id],
          )
        )[0];
      const before = await count();

      const created = await api.create({ ...HOSTILE, phone: randomPhone(), branch_id: branch });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.data).toMatchObject(HOSTILE);
      expect(await stored(created.body.data.id)).toEqual(HOSTILE);

      const updated = await api.update(created.body.data.id, HOSTILE_UPDATE);
      expect(updated.status, JSON.stringify(updated.body)).toBe(200);
      expect(updated.body.data).toMatchObject(HOSTILE_UPDATE);
      expect(await stored(created.body.data.id)).toEqual(HOSTILE_UPDATE);

      expect(await count()).toBe(before + 1);
      const [counter] = await dashboard.query(
        'SELECT last_no FROM member_counters WHERE branch_id = ?',
        [branch],
      );
      expect(Number(counter!.last_no)).toBe(1);
      expect((await api.get(created.body.data.id)).body.data).toEqual(updated.body.data);
    } finally {
      await gateway.close();
    }
  });
});
