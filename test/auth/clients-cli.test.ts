// `npm run clients -- create | list | disable | enable | rotate-secret | set-scopes | set-limits`,
// driven from outside as an operator would, and what each does to a running gateway at once.
import { describe, expect } from 'vitest';
import { setClientLimits } from '../../gateway/src/features/clients/clients.repository.js';
import { createClientEpochs } from '../../gateway/src/trust/client-epochs.js';
import type { TestEnvironment } from '../support/environment.js';
import { gatewayTest } from '../support/fixtures.js';
import { operatorCli } from '../support/operator-cli.js';
import {
  bearer,
  createTestClient,
  getJson,
  insertBranch,
  issueTokenPair,
  postJson,
  type RunningGateway,
} from '../support/gateway.js';

const it = gatewayTest();

// Read by the helpers below as by the tests.
let env: TestEnvironment;
let gateway: RunningGateway;

it.beforeAll(({ env: made, gateway: started }) => {
  env = made;
  gateway = started;
});

const clients = (...args: string[]) => operatorCli(env, 'clients', ...args);

const insertReadModelBranch = (id: number) => insertBranch(gateway.db, id);

const token = (key: string, secret: string) =>
  postJson(`${gateway.url}/api/v1/auth/token`, { client_key: key, client_secret: secret });
const refresh = (refreshToken: string) =>
  postJson(`${gateway.url}/api/v1/auth/refresh`, { refresh_token: refreshToken });
const members = (accessToken: string) =>
  getJson(`${gateway.url}/api/v1/members`, bearer(accessToken));

describe('npm run clients', () => {
  it('when creating a client with --json, then it prints id, client_key and client_secret once, and the secret works', async () => {
    await insertReadModelBranch(7);
    const created = JSON.parse(
      await clients(
        'create',
        '--name',
        'partner',
        '--scopes',
        'members:list,members:read',
        '--branch',
        '7',
        '--json',
      ),
    ) as { id: number; client_key: string; client_secret: string };
    expect(created).toMatchObject({
      id: expect.any(Number),
      client_key: expect.any(String),
      client_secret: expect.any(String),
    });
    const issued = await token(created.client_key, created.client_secret);
    expect(issued.body.data).toMatchObject({
      branch_id: 7,
      scopes: ['members:list', 'members:read'],
    });
    expect((await members(issued.body.data.access_token)).status).toBe(200);
    expect(await clients('list', '--json')).not.toContain(created.client_secret);
  });

  it('when a scope is unknown, then create exits non-zero naming it', async () => {
    await expect(
      clients('create', '--name', 'x', '--scopes', 'members:delete'),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('members:delete'),
    });
  });

  it('when a client is disabled, then its tokens stop working at once and token/refresh answer 403; enable lets it back in', async () => {
    const client = await createTestClient(gateway.db);
    const pair = await issueTokenPair(gateway, client);
    await clients('disable', client.client_key);

    expect((await members(pair.access_token)).body.error).toBe('INVALID_TOKEN');
    const tokenAnswer = await token(client.client_key, client.client_secret);
    expect(tokenAnswer.status).toBe(403);
    expect(tokenAnswer.body.error).toBe('INSUFFICIENT_SCOPE');
    const refreshAnswer = await refresh(pair.refresh_token);
    expect(refreshAnswer.status).toBe(403);
    expect(refreshAnswer.body.error).toBe('INSUFFICIENT_SCOPE');

    await clients('enable', client.client_key);
    expect((await token(client.client_key, client.client_secret)).status).toBe(200);
  });

  it('when the secret is rotated, then it is printed once, the old one fails and the new one works', async () => {
    const client = await createTestClient(gateway.db);
    const printed = JSON.parse(await clients('rotate-secret', client.client_key, '--json')) as {
      client_secret: string;
    };
    expect(printed.client_secret).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect((await token(client.client_key, client.client_secret)).status).toBe(401);
    expect((await token(client.client_key, printed.client_secret)).status).toBe(200);
    const stored = await gateway.db.apiClient.findUniqueOrThrow({ where: { id: client.id } });
    expect(stored.secret_hash).toMatch(/^hmac-sha256\$/);
    expect(stored.secret_hash).not.toContain(printed.client_secret);
    expect(await clients('list', '--json')).not.toContain(printed.client_secret);
  });

  it('when scopes are set, then a held token loses a dropped scope at once and new tokens list the new set', async () => {
    const client = await createTestClient(gateway.db, { scopes: ['members:list'] });
    const pair = await issueTokenPair(gateway, client);
    await clients('set-scopes', client.client_key, 'members:read,staff:read');
    const dropped = await members(pair.access_token);
    expect(dropped.status).toBe(403);
    expect(dropped.body.error).toBe('INSUFFICIENT_SCOPE');
    const fresh = await token(client.client_key, client.client_secret);
    expect(fresh.body.data.scopes).toEqual(['members:read', 'staff:read']);
  });

  it('when limits are set and reset, then the client carries them and then the defaults again', async () => {
    const client = await createTestClient(gateway.db);
    await clients('set-limits', client.client_key, '5/50/500');
    const limits = { rate_limit_minute: true, rate_limit_hour: true, rate_limit_day: true };
    expect(
      await gateway.db.apiClient.findUniqueOrThrow({ where: { id: client.id }, select: limits }),
    ).toEqual({ rate_limit_minute: 5, rate_limit_hour: 50, rate_limit_day: 500 });
    await clients('set-limits', client.client_key, 'default');
    expect(
      await gateway.db.apiClient.findUniqueOrThrow({ where: { id: client.id }, select: limits }),
    ).toEqual({ rate_limit_minute: null, rate_limit_hour: null, rate_limit_day: null });
  });

  it('when set-branch names a branch, then the client is bound to it, and `all` unbinds it; an unknown branch exits 1', async () => {
    const client = await createTestClient(gateway.db);
    await insertReadModelBranch(12);
    const branchOf = async () =>
      (await gateway.db.apiClient.findUniqueOrThrow({ where: { id: client.id } })).branch_id;
    expect(await clients('set-branch', client.client_key, '12')).toContain('branch set to 12');
    expect(await branchOf()).toBe(12);
    expect((await token(client.client_key, client.client_secret)).body.data.branch_id).toBe(12);
    await clients('set-branch', client.client_key, 'all');
    expect(await branchOf()).toBeNull();
    await expect(clients('set-branch', client.client_key, '98')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/branch 98 does not exist/),
    });
    expect(await branchOf()).toBeNull();
  });

  it('when the key is unknown, then it exits non-zero naming it', async () => {
    await expect(clients('disable', 'ck_nobody')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('ck_nobody'),
    });
  });

  it('when --help is asked, then it prints the usage and exits 0', async () => {
    const started = Date.now();
    const usage = await clients('--help');
    expect(usage).toMatch(/^usage: npm run clients/);
    for (const command of [
      'create',
      'list',
      'disable',
      'rotate-secret',
      'set-scopes',
      'set-limits',
    ])
      expect(usage).toContain(command);
    // No database is touched for it: an unreachable one must not matter.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('when --branch names a branch the read model does not have, then create exits 1 naming it', async () => {
    await expect(
      clients('create', '--name', 'x', '--scopes', 'members:list', '--branch', '99'),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/branch 99 does not exist/) });
    expect(await gateway.db.apiClient.count({ where: { name: 'x' } })).toBe(0);
  });

  it('when listing, then a table with a header shows key, name, scopes, data classes, branch, limits, state and last use', async () => {
    await insertReadModelBranch(8);
    const used = await createTestClient(gateway.db, { name: 'used client', branchId: 8 });
    await issueTokenPair(gateway, used);
    await setClientLimits(
      gateway.db,
      createClientEpochs(gateway.redis, env.redisPrefix),
      used.client_key,
      { minute: 5, hour: 50, day: 500 },
    );
    const idle = await createTestClient(gateway.db, { name: 'idle client' });
    const lines = (await clients('list')).trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^KEY\s+NAME\s+SCOPES\s+DATA\s+BRANCH\s+LIMITS \(M\/H\/D\)\s+STATE\s+LAST USE$/,
    );
    const row = (key: string) => lines.find((line) => line.startsWith(key)) ?? '';
    expect(row(used.client_key)).toMatch(
      /used client\s+members:list,members:read\s+basic,contact,\S+\s+8\s+5\/50\/500\s+active\s+\d{4}-\d\d-\d\dT/,
    );
    expect(row(idle.client_key)).toMatch(
      /idle client\s+\S+\s+\S+\s+all\s+default 60\/1000\/10000\s+active\s+never$/,
    );
    const listed = JSON.parse(await clients('list', '--json')) as Record<string, unknown>[];
    expect(listed.find((c) => c.client_key === used.client_key)?.last_used_at).toEqual(
      expect.any(String),
    );
    expect(listed.find((c) => c.client_key === idle.client_key)?.last_used_at).toBeNull();
  });

  it('when a command fails with --json, then the error is JSON on stderr', async () => {
    await expect(clients('disable', 'ck_nobody', '--json')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('{"error":"no client with key ck_nobody"}'),
    });
  });
});
