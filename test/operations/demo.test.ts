// The README's quick start as a new user runs it: `npm run demo` in an environment without
// SECRETS_KEY (its own databases, Redis prefix and ports through the documented variables), its
// printed curl lines run as printed, its page links followed, a webhook delivered and verified,
// then Ctrl-C. Every process it starts stores or reads something under the same SECRETS_KEY: the
// client secret (made by the demo, checked by the gateway), the webhook signing secret (encrypted
// by the gateway, used by the worker) and the sign-in links (made by the demo, spent by the
// gateway).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacy, databaseName } from '../../scripts/legacy/legacy-database.js';
import { demoLegacyUserName, dropLegacyUser } from '../../scripts/legacy/legacy-users.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { bearer, getJson, postJson } from '../support/gateway.js';
import { freePort, freePortPair } from '../support/spare-processes.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';

const run = promisify(execFile);

let env: TestEnvironment;
let demo: ChildProcess;
let output = '';
const secrets = new Map<string, string>();
let receiver: Awaited<ReturnType<typeof startReceiver>>;

/** Resolves with the first line of the demo's output that `match` finds, or fails naming it. */
async function printed(match: RegExp, timeoutMs = 90_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = output.match(match);
    if (found) return found;
    if (demo.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the demo did not print ${match}; it printed:\n${output.slice(-4000)}`);
}

beforeAll(async () => {
  env = await createTestEnvironment();
  receiver = await startReceiver({ secrets });
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    // A clean environment: none of the suite's settings, and above all no SECRETS_KEY.
    if (value !== undefined && !/^(SECRETS_KEY|DATABASE_|LEGACY_|REDIS_|PORT|METRICS_)/.test(name))
      environment[name] = value;
  }
  demo = spawn('npm', ['run', 'demo'], {
    // Its own process group, as a shell gives a command: Ctrl-C is a SIGINT to the whole group.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...environment,
      DATABASE_URL: env.databaseUrl,
      LEGACY_DATABASE_URL: env.legacyUrl,
      REDIS_URL: env.redisUrl,
      REDIS_PREFIX: env.redisPrefix,
      PORT: String(await freePort()),
      // The worker's metrics listen on the next port.
      METRICS_PORT: String(await freePortPair()),
      // The test's receiver listens on loopback over plain HTTP.
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
    },
  });
  demo.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  demo.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
}, 120_000);

afterAll(async () => {
  if (demo.exitCode === null && demo.signalCode === null) process.kill(-demo.pid!, 'SIGKILL');
  await receiver.close();
  const admin = await connectLegacy(env.legacyUrl, { database: null });
  try {
    const database = databaseName(env.legacyUrl);
    for (const process of ['gateway', 'sync'] as const)
      await dropLegacyUser(admin, { user: demoLegacyUserName(database, process), password: '' });
  } finally {
    await admin.end();
  }
  await env.destroy();
});

describe('npm run demo, as the README says, without SECRETS_KEY', () => {
  let token = '';
  let base = '';

  it('prints its curl lines, and the first answers 200 with members', async () => {
    const [line] = await printed(
      /^curl -s -H 'Authorization: Bearer [^']+' '[^']+members\?limit=5'$/m,
    );
    expect(output).toContain('SECRETS_KEY is unset: using the public development key');
    const { stdout } = await run('bash', ['-c', `${line} -w '\\n%{http_code}'`]);
    const [body, status] = stdout.split('\n');
    expect(status).toBe('200');
    const members = JSON.parse(body!) as { success: boolean; data: unknown[] };
    expect(members.success).toBe(true);
    expect(members.data.length).toBeGreaterThan(0);
    token = /Bearer ([^']+)'/.exec(line)![1]!;
    base = /'(http:\/\/[^/]+)\/api/.exec(line)![1]!;
  }, 120_000);

  it('its console and portal links sign in on the gateway it started', async () => {
    const [, consoleLink] = await printed(/console \(operators\): (\S+)/);
    const [, portalLink] = await printed(/portal of the demo client: (\S+)/);
    for (const link of [consoleLink!, portalLink!]) {
      // The links name PUBLIC_BASE_URL's default host; the gateway is the same.
      const answer = await fetch(link.replace(/^http:\/\/localhost:\d+/, base));
      expect(answer.status, link).toBe(200);
      expect(await answer.text()).toMatch(/<form[^>]+method="post"/i);
    }
  });

  it('its member-create curl line reaches a webhook signed under the key the worker holds', async () => {
    const subscribed = await postJson(
      `${base}/api/v1/webhooks`,
      { url: receiver.url('/demo'), types: ['members'] },
      bearer(token).headers,
    );
    expect(subscribed.status).toBe(201);
    secrets.set('/demo', subscribed.body.data.secret as string);
    const [line] = await printed(/^curl .+ -d '\{"full_name":"Deneme".+'$/m);
    const { stdout } = await run('bash', ['-c', `${line} -w '\\n%{http_code}'`]);
    expect(stdout.split('\n').at(-1)).toBe('201');
    const delivered = await eventually(() => {
      const found = receiver.received.find((r) => r.path === '/demo');
      expect(found).toBeDefined();
      return found!;
    }, 20_000);
    expect(delivered.verified).toBe(true);
    expect(JSON.stringify(delivered.parsed)).toContain('Deneme');
    const detail = await getJson(`${base}/api/v1/members?search=Deneme`, bearer(token));
    expect(detail.status).toBe(200);
  }, 60_000);

  it('Ctrl-C stops gateway and worker within the shutdown time, and the demo exits', async () => {
    const pids = [...output.matchAll(/"pid":(\d+),[^\n]*"name":"(gateway|worker)"/g)].map((m) =>
      Number(m[1]),
    );
    expect(new Set(pids).size).toBe(2);
    const exited = once(demo, 'exit');
    const started = Date.now();
    process.kill(-demo.pid!, 'SIGINT');
    // npm, like a shell, ends by the signal it was sent once its script has exited.
    const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    expect([0, 'SIGINT']).toContain(code ?? signal);
    // SHUTDOWN_TIMEOUT_MS's default, 10 s.
    expect(Date.now() - started).toBeLessThan(10_000);
    for (const pid of new Set(pids)) expect(() => process.kill(pid, 0), String(pid)).toThrow();
    expect(output).not.toMatch(/second stop signal/);
  }, 30_000);
});
