// Member writes while MySQL is away: 503 SERVER_ERROR with Retry-After within seconds, nothing
// written, and the same gateway keeps serving reads from the read model. And PostgreSQL failing
// after the legacy commit: the write stands and says so.
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { createTestClient, issueToken, startGateway } from '../support/gateway.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { memberApi, randomPhone } from '../support/member-writes.js';
import { freePort } from '../support/spare-processes.js';
import { syncOnce } from '../support/sync-once.js';

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let branch: number;
let seeded: number;
/** Accepts TCP connections and never answers: a MySQL that hangs. */
let silent: Server;
const sockets: Socket[] = [];
/**
 * MySQL slow once a connection is open: the real server behind a relay that passes the greeting
 * and the login's answer, then holds every later answer 2.5 s, past the pool's connect time-out
 * while the session's set-up statements run. mariadb 3.4.5 let that time-out escape as an
 * unhandled rejection, which ends the process.
 */
let slow: Server;
const relayed: Socket[] = [];
const unhandled: unknown[] = [];
const noteUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  env = await createTestEnvironment();
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  branch = await dashboard.insertBranch();
  seeded = await dashboard.insertMember({ branch_id: branch });
  await syncOnce(env);
  silent = createServer((socket) => sockets.push(socket));
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  const legacy = new URL(env.legacyUrl);
  slow = createServer((socket) => {
    const server = connect(Number(legacy.port || 3306), legacy.hostname);
    relayed.push(socket, server);
    let answers = 0;
    server.on('data', (chunk) => {
      answers += 1;
      if (answers <= 2) socket.write(chunk);
      else setTimeout(() => socket.writable && socket.write(chunk), 2500);
    });
    socket.on('data', (chunk) => server.write(chunk));
    for (const end of [socket, server]) end.on('error', () => undefined);
    socket.on('close', () => server.destroy());
    server.on('close', () => socket.destroy());
  });
  slow.listen(0, '127.0.0.1');
  await once(slow, 'listening');
  process.on('unhandledRejection', noteUnhandled);
});

afterAll(async () => {
  process.off('unhandledRejection', noteUnhandled);
  for (const socket of [...sockets, ...relayed]) socket.destroy();
  silent?.close();
  slow?.close();
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
  [
    'answers the login, then too slowly',
    () => {
      const url = new URL(env.legacyUrl);
      url.host = `127.0.0.1:${(slow.address() as AddressInfo).port}`;
      return url.toString();
    },
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
      // The pool's own attempts in the background fail too, and must not end the process.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(unhandled).toEqual([]);
    } finally {
      await gateway.close();
    }
  });
});

describe('when PostgreSQL refuses the read-model write after the legacy commit', () => {
  it('then the create still answers 201 with X-Read-Model: pending, legacy holds it, and the worker converges', async () => {
    const gateway = await startGateway(env);
    const readModel = new pg.Client({ connectionString: env.databaseUrl });
    await readModel.connect();
    try {
      const client = await createTestClient(gateway.db, {
        scopes: ['members:read', 'members:write'],
      });
      const api = memberApi(gateway.url, await issueToken(gateway, client));
      // A fault in the read model only: its members table refuses every write.
      await readModel.query(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN RAISE EXCEPTION 'read model unavailable'; END $$`);
      await readModel.query(
        'CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON members FOR EACH ROW EXECUTE FUNCTION refuse()',
      );
      const phone = randomPhone();
      const { status, body, headers } = await api.create({
        full_name: 'Bekleyen',
        phone,
        branch_id: branch,
      });
      expect([status, headers.get('x-read-model')]).toEqual([201, 'pending']);
      expect(body.data).toMatchObject({ phone, branch_id: branch, full_name: 'Bekleyen' });
      const [row] = await dashboard.query('SELECT member_no FROM members WHERE id = ?', [
        body.data.id,
      ]);
      expect(row?.member_no).toBe(body.data.member_no);
      expect((await api.get(body.data.id)).status).toBe(404);
      // The audit record travels with the read-model write; refused with it, it is stored alone.
      const audit = await readModel.query(
        'SELECT operation, status, after FROM member_write_audit WHERE member_id = $1',
        [body.data.id],
      );
      expect(audit.rows).toEqual([{ operation: 'create', status: 201, after: body.data }]);

      await readModel.query('DROP TRIGGER refuse ON members');
      await syncOnce(env);
      const read = await api.get(body.data.id);
      expect(read.body.data).toEqual(body.data);
      expect(read.headers.get('etag')).toBe(headers.get('etag'));
    } finally {
      await readModel.end();
      await gateway.close();
    }
  });
});
