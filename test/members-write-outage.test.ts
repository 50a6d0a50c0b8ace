// Member writes while MySQL is away: 503 SERVER_ERROR with Retry-After within seconds, nothing
// written, and the same gateway keeps serving reads from the read model.
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from './support/environment.js';
import { createTestClient, issueToken, startGateway } from './support/gateway.js';
import { LegacyDashboard } from './support/legacy-dashboard.js';
import { memberApi, randomPhone } from './support/member-writes.js';
import { freePort } from './support/spare-redis.js';
import { syncOnce } from './support/sync-once.js';

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let branch: number;
let seeded: number;
/** Accepts TCP connections and never answers: a MySQL that hangs. */
let silent: Server;
const sockets: Socket[] = [];

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  branch = await dashboard.insertBranch();
  seeded = await dashboard.insertMember({ branch_id: branch });
  await syncOnce(env);
  silent = createServer((socket) => sockets.push(socket));
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  silent?.close();
  await dashboard?.close();
  await env?.destroy();
});

const legacyMembers = async () =>
  Number((await dashboard.query('SELECT COUNT(*) AS n FROM members'))[0]!.n);

describe.each([
  ['refuses connections', async () => `mysql://root@127.0.0.1:${await freePort()}/x`],
  [
    'accepts but never answers',
    () => `mysql://root@127.0.0.1:${(silent.address() as AddressInfo).port}/x`,
  ],
])('when MySQL %s', (_how, legacyUrl) => {
  it('then a create answers 503 with Retry-After in under 5 s, nothing is written, and reads answer 200', async () => {
    const gateway = await startGateway(env, { LEGACY_DATABASE_URL: await legacyUrl() });
    try {
      const client = await createTestClient(gateway.db, {
        scopes: ['members:read', 'members:list', 'members:write'],
      });
      const api = memberApi(gateway.url, await issueToken(gateway, client));
      const before = await legacyMembers();
      for (let attempt = 0; attempt < 2; attempt++) {
        const started = Date.now();
        const { status, body, headers } = await api.create({
          full_name: 'Yok',
          phone: randomPhone(),
          branch_id: branch,
        });
        expect(Date.now() - started).toBeLessThan(5000);
        expect([status, body.error]).toEqual([503, 'SERVER_ERROR']);
        expect(Number(headers.get('retry-after'))).toBeGreaterThan(0);
        expect(JSON.stringify(body)).not.toMatch(/pool|ECONN|mysql|127\.0\.0\.1/i);
      }
      expect(await legacyMembers()).toBe(before);
      expect((await api.get(seeded)).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});
