// The production image without Docker: its runtime stage assembled in a temporary directory from
// the Dockerfile's last stage (its COPY and ENV lines), every file and directory as new as a copy
// makes it and the build stamp older, as BuildKit leaves them. From there the one-shot jobs of
// compose's `migrate` service and an operator's `npm run clients` run, and the gateway and the
// worker start as the image starts them.
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productionCommand } from '../../scripts/production-command.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { postJson } from '../support/gateway.js';
import { environmentVariables, startProcess, type RunningProcess } from '../support/processes.js';

const run = promisify(execFile);

interface RuntimeStage {
  env: Record<string, string>;
  copies: { from: string | undefined; source: string; destination: string }[];
}

/**
 * The COPY and ENV lines after the Dockerfile's last FROM. A line of another shape fails the
 * test, so that it follows the Dockerfile rather than a guess of it.
 */
function runtimeStage(dockerfile: string): RuntimeStage {
  const lines = dockerfile.split('\n');
  const stage = lines.slice(lines.findLastIndex((line) => line.startsWith('FROM ')) + 1);
  const env: Record<string, string> = {};
  const copies: RuntimeStage['copies'] = [];
  for (const line of stage) {
    const [instruction, ...words] = line.trim().split(/\s+/);
    if (instruction === 'ENV') {
      for (const word of words) {
        const [name, value] = word.split('=') as [string, string | undefined];
        if (value === undefined) throw new Error(`ENV without name=value: ${line}`);
        env[name] = value;
      }
    } else if (instruction === 'COPY') {
      const from = words[0]?.startsWith('--from=')
        ? words.shift()!.slice('--from='.length)
        : undefined;
      const [source, destination, ...rest] = words;
      if (!source || !destination || rest.length > 0 || words.some((w) => w.startsWith('--'))) {
        throw new Error(`a COPY this test does not know: ${line}`);
      }
      copies.push({ from, source, destination });
    } else if (instruction === 'WORKDIR' && words[0] !== '/app') {
      throw new Error(`a WORKDIR this test does not know: ${line}`);
    }
  }
  return { env, copies };
}

/**
 * What `npm ci --omit=dev` installs: the lockfile's packages that are not dev-only (peer
 * dependencies included, as npm installs them). Each is linked from the repository's
 * node_modules: Node follows the link to the package's real path, where its own dependencies are
 * found (all production ones too), while the compiled code in dist/ resolves its imports through
 * this directory alone, so an import of a dev dependency fails here as in the image. Nested
 * packages (a/node_modules/b) come with their parent.
 */
function linkProductionDependencies(target: string): void {
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (entry.dev || !/^node_modules\/(@[^/]+\/)?[^/]+$/.test(key)) continue;
    // An optional package of another platform, absent here as in the image.
    if (!existsSync(key)) continue;
    const link = join(target, key.slice('node_modules/'.length));
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(resolve(key), link, 'dir');
  }
}

/** Every file and directory under `dir` (node_modules apart: links into the repository). */
function* entriesUnder(dir: string): Generator<string> {
  yield dir;
  if (!statSync(dir).isDirectory()) return;
  for (const child of readdirSync(dir)) {
    if (child !== 'node_modules') yield* entriesUnder(join(dir, child));
  }
}

/**
 * The runtime stage in `root`: the build stage's files are this repository's after `npm run
 * build` (global-setup.ts builds it), the build context's are this repository's too.
 */
function assemble(stage: RuntimeStage, root: string): void {
  for (const { from, source, destination } of stage.copies) {
    const target = join(
      root,
      destination.endsWith('/') ? join(destination, basename(source)) : destination,
    );
    mkdirSync(dirname(target), { recursive: true });
    if (from === 'production-dependencies' && source === '/app/node_modules') {
      linkProductionDependencies(target);
    } else if (from === undefined || (from === 'build' && source.startsWith('/app/'))) {
      cpSync(from === undefined ? source : source.slice('/app/'.length), target, {
        recursive: true,
      });
    } else {
      throw new Error(`a COPY source this test does not know: --from=${from} ${source}`);
    }
  }
  // New times throughout, and the stamp older: the build stage wrote it before the copies.
  const now = new Date();
  for (const entry of entriesUnder(root)) utimesSync(entry, now, now);
  const built = new Date(now.getTime() - 60_000);
  utimesSync(join(root, 'dist/.build-stamp'), built, built);
}

let env: TestEnvironment;
let stage: RuntimeStage;
let root: string;
let admin: pg.Client;
/** A database of its own, left empty for `npm run db:migrate` (env's is migrated already). */
let databaseUrl: string;
const started: RunningProcess[] = [];

beforeAll(async () => {
  env = await createTestEnvironment();
  const url = new URL(env.databaseUrl);
  url.pathname = '/postgres';
  admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${env.name}_image"`);
  url.pathname = `/${env.name}_image`;
  databaseUrl = url.toString();
  stage = runtimeStage(readFileSync('Dockerfile', 'utf8'));
  root = mkdtempSync(join(tmpdir(), 'dashboard-api-image-'));
  assemble(stage, root);
});

afterAll(async () => {
  for (const child of started) child.kill();
  await Promise.all(started.map((child) => child.exited));
  if (root) rmSync(root, { recursive: true, force: true });
  await admin?.query(`DROP DATABASE IF EXISTS "${env.name}_image" WITH (FORCE)`);
  await admin?.end();
  await env?.destroy();
});

/** The variables of a process in the image: the Dockerfile's, then the deployment's. */
function variables(): Record<string, string> {
  return { ...stage.env, ...environmentVariables(env), DATABASE_URL: databaseUrl };
}

/**
 * `npm run <script> -- ...args` in the image's directory, on the legacy database as its owner (as
 * compose's `migrate` service, which creates it); a failure says what it printed.
 */
async function npmRun(script: string, ...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('npm', ['run', '--silent', script, '--', ...args], {
      cwd: root,
      env: { ...process.env, ...variables(), LEGACY_DATABASE_URL: env.legacyUrl },
    });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout: string; stderr: string };
    throw new Error(`npm run ${script} failed:\n${stdout}\n${stderr}`, { cause: error });
  }
}

/** The status and body of a GET, for a poll whose failure shows what was answered last. */
const answer = (url: string) =>
  fetch(url).then(
    async (response) => `${response.status} ${await response.text()}`,
    (error: unknown) => String(error),
  );

describe('the runtime stage of the image, every file newer than the build stamp', () => {
  // Three npm scripts and two processes, each starting Node, on a machine that may be busy: far
  // longer than a request.
  it(
    'when compose migrates, an operator creates a client, and the gateway and the worker start there, then each works and nothing is compiled',
    { timeout: 120_000 },
    async () => {
      const stamp = statSync(join(root, 'dist/.build-stamp')).mtimeMs;
      // A production dependency (a peer of @prisma/client): a compile would be attempted here.
      expect(existsSync(join(root, 'node_modules/typescript'))).toBe(true);

      // compose's `migrate` service: the read model's migrations and the legacy demo data, side
      // by side here (compose runs them in turn; they touch different servers).
      await Promise.all([npmRun('db:migrate'), npmRun('legacy:seed')]);

      const image = (kind: 'gateway' | 'worker') => {
        const child = startProcess(kind, variables(), { args: productionCommand(kind), cwd: root });
        started.push(child);
        return child;
      };
      const gateway = image('gateway');
      const worker = image('worker');
      const created = JSON.parse(
        await npmRun('clients', 'create', '--name', 'image', '--scopes', 'members:list', '--json'),
      ) as { client_key: string; client_secret: string };
      const { port } = await gateway.waitForLine((l) => l.msg === 'gateway listening');
      const { metricsPort } = await worker.waitForLine((l) => l.msg === 'sync worker started');
      const gatewayUrl = `http://127.0.0.1:${port as number}`;
      // Polled as compose's health checks poll: a first probe may find the pools still opening.
      await expect.poll(() => answer(`${gatewayUrl}/readyz`), { timeout: 15_000 }).toMatch(/^200 /);
      await expect
        .poll(() => answer(`http://127.0.0.1:${metricsPort as number}/healthz`), {
          timeout: 15_000,
        })
        .toMatch(/^200 /);
      const issued = await postJson(`${gatewayUrl}/api/v1/auth/token`, {
        client_key: created.client_key,
        client_secret: created.client_secret,
      });
      expect(issued.status).toBe(200);

      for (const child of [gateway, worker]) child.child.kill('SIGTERM');
      expect(await Promise.all([gateway.exited, worker.exited])).toEqual([0, 0]);
      expect(statSync(join(root, 'dist/.build-stamp')).mtimeMs).toBe(stamp);
    },
  );
});
