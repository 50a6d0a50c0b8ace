// The operator interface driven from outside, as an operator would: npm scripts and environment.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { describe, expect } from 'vitest';
import type { TestEnvironment } from '../support/environment.js';
import { gatewayTest } from '../support/fixtures.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { syncOnce } from '../support/sync-once.js';
import type { RunningGateway } from '../support/gateway.js';
import { productionCommand } from '../../scripts/production-command.js';
import { DEVELOPMENT_SECRETS_KEY } from '#common/config.js';

const run = promisify(execFile);
const it = gatewayTest();

// Read by the helpers below as by the tests.
let env: TestEnvironment;
let gateway: RunningGateway;

it.beforeAll(({ env: made, gateway: started }) => {
  env = made;
  gateway = started;
});

const npmEnv = () => ({
  ...process.env,
  DATABASE_URL: env.databaseUrl,
  LEGACY_DATABASE_URL: env.legacyUrl,
  REDIS_PREFIX: env.redisPrefix,
});

describe('npm run sync:verify', () => {
  it('when the read model matches, then it exits 0; when a row or a kept count differs, then it names it and exits 1', async () => {
    const dashboard = await LegacyDashboard.connect(env.legacyUrl);
    try {
      const branchId = await dashboard.insertBranch({ name: 'Doğruluk' });
      await dashboard.insertMember({ branch_id: branchId });
      await syncOnce(env);
      const clean = await run('npm', ['run', '--silent', 'sync:verify'], { env: npmEnv() });
      expect(clean.stdout).toContain('total: 0 differences');

      // A row that differs, a kept count (a list's exact total) that no longer matches the rows,
      // and a kept total (the group's count over all its ids) that does not either: one run
      // names each of them.
      await gateway.db.member.updateMany({ data: { full_name: 'Bozuk' } });
      await gateway.db
        .$executeRaw`INSERT INTO kept_counts (table_name, branch_key, status, id_block, n)
        VALUES ('members', ${branchId}, 'Aktif', 0, 1)`;
      await gateway.db.$executeRaw`INSERT INTO kept_totals (table_name, branch_key, status, n)
        VALUES ('members', ${branchId}, 'Aktif', 5)`;
      const failure = (await run('npm', ['run', '--silent', 'sync:verify'], {
        env: npmEnv(),
      }).catch((e: unknown) => e)) as {
        code: number;
        stdout: string;
      };
      expect(failure.code).toBe(1);
      expect(failure.stdout).toMatch(/members: 0 missing, 0 extra, 1 different/);
      expect(failure.stdout).toMatch(/full_name/);
      expect(failure.stdout).toContain(
        `members kept count of branch ${branchId}, status 'Aktif', ids 0–4095: 2 kept, 1 actual`,
      );
      expect(failure.stdout).toContain(
        `members kept count of branch ${branchId}, status 'Aktif', all ids: 6 kept, 1 actual`,
      );
    } finally {
      await dashboard.close();
    }
  });
});

describe('configuration errors', () => {
  it('when a variable is bad, then the gateway stops with one line naming it', async () => {
    const failure = (await run('npm', ['run', '--silent', 'gateway'], {
      env: { ...process.env, PORT: 'not-a-port' },
    }).catch((e: unknown) => e)) as {
      code: number;
      stderr: string;
    };
    expect(failure.code).toBe(1);
    expect(failure.stderr.trim().split('\n')).toHaveLength(1);
    expect(failure.stderr).toMatch(/PORT/);
  });

  it('when SECRETS_KEY is unset in production, then the gateway and the worker each stop with one line naming it', async () => {
    for (const script of ['gateway', 'worker'] as const) {
      // node itself, as the image runs it: a process that started instead is ended by the
      // timeout (through npm, its node would be left running), and the test fails.
      const failure = (await run(process.execPath, productionCommand(script), {
        env: { ...process.env, NODE_ENV: 'production', SECRETS_KEY: '' },
        timeout: 20_000,
        killSignal: 'SIGKILL',
      }).catch((e: unknown) => e)) as { code: number; stderr: string };
      expect([script, failure.code]).toEqual([script, 1]);
      expect(failure.stderr.trim().split('\n')).toHaveLength(1);
      expect(failure.stderr).toMatch(/SECRETS_KEY: required in production/);
    }
  });

  it('when SECRETS_KEY is a published key in production (the demo and development one), then the gateway and the worker each stop with one line naming it', async () => {
    for (const script of ['gateway', 'worker'] as const) {
      const failure = (await run(process.execPath, productionCommand(script), {
        env: { ...process.env, NODE_ENV: 'production', SECRETS_KEY: DEVELOPMENT_SECRETS_KEY },
        timeout: 20_000,
        killSignal: 'SIGKILL',
      }).catch((e: unknown) => e)) as { code: number; stderr: string };
      expect([script, failure.code]).toEqual([script, 1]);
      expect(failure.stderr.trim().split('\n')).toHaveLength(1);
      expect(failure.stderr).toMatch(/SECRETS_KEY: a published key/);
    }
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(
    readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8'),
    // Merge keys (<<) resolved, as compose does.
    { merge: true },
  ) as {
    services: Record<string, Record<string, any>>;
  };

  const inProfile = (profile: string | undefined) =>
    Object.entries(compose.services)
      .filter(([, service]) => (service.profiles as string[] | undefined)?.[0] === profile)
      .map(([name]) => name)
      .sort();

  it('then it runs the legacy MySQL from the project dump, PostgreSQL, Redis, a one-shot migration, gateway and worker', () => {
    expect(inProfile(undefined)).toEqual([
      'gateway',
      'legacy-db',
      'migrate',
      'postgres',
      'redis',
      'secrets-key',
      'worker',
    ]);
    expect(compose.services['legacy-db']!.image).toMatch(/^mysql:8/);
    expect(compose.services['legacy-db']!.volumes.join('\n')).toContain(
      './prisma/legacy/schema.sql:/docker-entrypoint-initdb.d/',
    );
    expect(compose.services.migrate!.restart).toBe('no');
  });

  it('then its MySQL writes the binary log SYNC_SOURCE=binlog follows, and the worker polls unless told', () => {
    const command = compose.services['legacy-db']!.command as string[];
    for (const flag of ['--log-bin', '--binlog-format=ROW', '--binlog-row-image=FULL']) {
      expect(command.some((arg) => arg === flag || arg.startsWith(`${flag}=`))).toBe(true);
    }
    expect(command.some((arg) => /^--server-id=[1-9]/.test(arg))).toBe(true);
    expect(compose.services.worker!.environment.SYNC_SOURCE).toBe('${SYNC_SOURCE:-poll}');
    expect(readFileSync('docker/mysql-init/02-users.sql', 'utf8')).toContain(
      "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'api_sync'@'%';",
    );
  });

  it('then its scale profile adds a load balancer over two gateways reading a replica, and a worker', () => {
    expect(inProfile('scale')).toEqual([
      'gateway-a',
      'gateway-b',
      'lb',
      'postgres-replica',
      'worker-b',
    ]);
    for (const name of ['gateway-a', 'gateway-b']) {
      const gateway = compose.services[name]!;
      expect(gateway.environment.DATABASE_READ_URLS).toContain('@postgres-replica:5432/');
      expect(gateway.command).toEqual(compose.services.gateway!.command);
      expect(gateway.ports).toBeUndefined();
    }
    expect(compose.services['worker-b']!.command).toEqual(compose.services.worker!.command);
  });

  it('then gateway and worker are separate, health-checked services that wait for the migration', () => {
    for (const name of ['gateway', 'worker']) {
      const service = compose.services[name]!;
      expect(service.healthcheck?.test).toBeDefined();
      expect(service.depends_on?.migrate?.condition).toBe('service_completed_successfully');
      expect(service.container_name).toBeUndefined();
      // Stopping drains: an init passes SIGTERM on, the grace period outlasts the 10 s drain.
      expect(service.init).toBe(true);
      expect(service.stop_grace_period).toBe('15s');
    }
    // node itself receives SIGTERM and drains (npm would end without waiting for it), running
    // the compiled JavaScript of the production image.
    // The heap bounds of gateway and worker (docs/decisions/0005, 0002) are the same wherever
    // each is started.
    const gatewayArgs = productionCommand('gateway');
    expect(gatewayArgs.at(-1)).toBe('dist/gateway/src/main.js');
    expect(compose.services.gateway!.command).toEqual(['node', ...gatewayArgs]);
    expect(readFileSync('Dockerfile', 'utf8')).toContain(
      `CMD ${JSON.stringify(['node', ...gatewayArgs]).replaceAll(',', ', ')}`,
    );
    const workerArgs = productionCommand('worker');
    expect(workerArgs.at(-1)).toBe('dist/worker/src/main.js');
    expect(compose.services.worker!.command).toEqual(['node', ...workerArgs]);
  });

  it('then every service of the product, and the commands run in its migrate service, hold one SECRETS_KEY, made at the first start and kept', async () => {
    // What one process stores under the key (a client secret, a webhook signing secret, a
    // sign-in link) another reads: a service with another key would refuse them all.
    const product = Object.entries(compose.services).filter(
      ([, service]) => service.image === 'dashboard-partner-api',
    );
    expect(product.map(([name]) => name).sort()).toEqual(
      ['gateway', 'gateway-a', 'gateway-b', 'migrate', 'secrets-key', 'worker', 'worker-b'].sort(),
    );
    // One file, in one volume, written by the one-shot before any service starts; no key in
    // the compose file itself (a key written there is published, and production refuses it).
    const writer = compose.services['secrets-key']!;
    const [script, file] = (writer.command as string[]).slice(1);
    expect(writer.volumes).toEqual(['secrets-key:/run/secrets-key']);
    expect(file).toBe('/run/secrets-key/key');
    for (const [name, service] of product.filter(([name]) => name !== 'secrets-key')) {
      expect([name, service.environment.SECRETS_KEY]).toEqual([name, undefined]);
      expect([name, service.environment.SECRETS_KEY_FILE]).toEqual([name, file]);
      expect([name, service.volumes]).toEqual([name, ['secrets-key:/run/secrets-key:ro']]);
      expect([name, service.depends_on['secrets-key']]).toEqual([
        name,
        { condition: 'service_completed_successfully' },
      ]);
    }
    // The writer makes a key of SECRETS_KEY's form once, and never replaces it.
    const written = join(mkdtempSync(join(tmpdir(), 'secrets-key-')), 'key');
    await run(process.execPath, [script!, written]);
    const key = readFileSync(written, 'utf8');
    expect(key).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    await run(process.execPath, [script!, written]);
    expect(readFileSync(written, 'utf8')).toBe(key);
  });
});
