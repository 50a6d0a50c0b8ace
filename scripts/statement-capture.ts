// The statements the product sends, captured so that a refactor can show it sends the same ones.
//
//   npx tsx scripts/statement-capture.ts run --out /tmp/before -- npm test
//   npx tsx scripts/statement-capture.ts compare /tmp/before /tmp/after
//
// `run` starts a PostgreSQL and a MariaDB of its own (spare ports, temporary directories) that log
// every statement, runs the command with DATABASE_URL and LEGACY_DATABASE_URL pointing at them
// (the test suite and the benchmark both honour them), stops them, and writes each server's
// statements as shapes: literals, parameters' numbering, IN lists and throwaway names folded, one
// line per distinct shape, sorted (`<out>.postgres.txt`, `<out>.mysql.txt`). `compare` prints the
// shapes only one side sent and exits 1 when there are any.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  createWriteStream,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if (check()) return;
    } catch {
      // not up yet
    }
    await sleep(100);
  }
  throw new Error(`${what} did not start`);
}

/** Runs as the server's own system user when we are root (both refuse to run as root otherwise). */
function asUser(name: string): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const [uid, gid] = ['-u', '-g'].map((flag) =>
    Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim()),
  );
  return { uid, gid };
}

async function startPostgres(
  dir: string,
): Promise<{ url: string; server: ChildProcess; log: string }> {
  const bin = `/usr/lib/postgresql/${readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))[0]}/bin`;
  const user = asUser('postgres');
  const data = path.join(dir, 'pg');
  execFileSync('mkdir', ['-p', data]);
  if (user.uid !== undefined) execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, dir]);
  execFileSync(
    path.join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'],
    {
      stdio: 'ignore',
      ...user,
    },
  );
  const port = await freePort();
  const log = path.join(dir, 'postgres.log');
  const server = spawn(
    path.join(bin, 'postgres'),
    [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-h',
      '127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'max_connections=400',
    ].concat([
      '-c',
      'log_statement=all',
      '-c',
      'log_line_prefix=@@ ',
      '-c',
      'log_min_error_statement=panic',
    ]),
    { stdio: ['ignore', 'ignore', 'pipe'], ...user },
  );
  server.stderr.pipe(createWriteStream(log));
  await waitFor(
    () => readFileSync(log, 'utf8').includes('ready to accept connections'),
    'PostgreSQL',
  );
  return { url: `postgresql://postgres@127.0.0.1:${port}/postgres`, server, log };
}

async function startMariaDb(
  dir: string,
): Promise<{ url: string; server: ChildProcess; log: string }> {
  const data = path.join(dir, 'mariadb');
  execFileSync(
    'mariadb-install-db',
    [
      '--no-defaults',
      `--datadir=${data}`,
      '--user=root',
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ],
    { stdio: 'ignore' },
  );
  const port = await freePort();
  const log = path.join(dir, 'mysql.log');
  const server = spawn(
    'mariadbd',
    [
      '--no-defaults',
      `--datadir=${data}`,
      '--user=root',
      `--port=${port}`,
      '--bind-address=127.0.0.1',
    ].concat([
      `--socket=${path.join(dir, 'mariadb.sock')}`,
      '--skip-log-bin',
      '--innodb-flush-log-at-trx-commit=0',
      '--max-connections=1000',
      '--character-set-server=utf8mb4',
      '--collation-server=utf8mb4_turkish_ci',
      '--general-log=1',
      `--general-log-file=${log}`,
    ]),
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const errors: Buffer[] = [];
  server.stderr.on('data', (chunk: Buffer) => errors.push(chunk));
  await waitFor(
    () => Buffer.concat(errors).toString().includes('ready for connections'),
    'MariaDB',
  );
  // mariadb-install-db's anonymous users would shadow root@localhost-named users the tests create.
  execFileSync('mariadb', [
    '-uroot',
    '-h127.0.0.1',
    `-P${port}`,
    '-e',
    "DELETE FROM mysql.global_priv WHERE User=''; FLUSH PRIVILEGES",
  ]);
  return { url: `mysql://root@127.0.0.1:${port}/mysql`, server, log };
}

/** One statement's shape: what stays the same however often and with whatever values it runs. */
export function shapeOf(statement: string): string {
  return statement
    .replace(/'(?:[^']|'')*'/g, "'?'")
    .replace(/\b[0-9a-f]{8,}\b/gi, '#') // throwaway names and keys
    .replace(/\b(t|test|bench|run|p)_[a-z0-9_]*[0-9][a-z0-9_]*/gi, '$1_#')
    .replace(/-?\b\d+(\.\d+)?\b/g, '?')
    .replace(/\$\d+/g, '$?')
    .replace(/\s+/g, ' ')
    .replace(/\((?:\s*(?:\$\?|\?|'\?'|NULL|DEFAULT)\s*,?)+\)/gi, '(…)')
    .replace(/(\(…\)\s*,\s*)+\(…\)/g, '(…)')
    .trim();
}

function postgresStatements(log: string): string[] {
  const statements: string[] = [];
  for (const entry of readFileSync(log, 'utf8').split(/\n@@ /)) {
    const match = /^LOG:\s+(?:statement|execute [^:]*):\s([\s\S]*)$/.exec(entry.trim());
    if (match) statements.push(match[1]!);
  }
  return statements;
}

function mysqlStatements(log: string): string[] {
  const statements: string[] = [];
  // Each entry starts with an optional time, the thread id and the command.
  const start =
    /^(?:\d{6}\s+\d{1,2}:\d{2}:\d{2})?\s+\d+\s+(Query|Execute|Prepare|Connect|Quit|Init DB|Close stmt|Field List|Statistics|Ping|Reset stmt)\t?(.*)$/;
  let current: { command: string; text: string } | null = null;
  const flush = () => {
    if (current && ['Query', 'Execute'].includes(current.command)) statements.push(current.text);
  };
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const match = start.exec(line);
    if (match) {
      flush();
      current = { command: match[1]!, text: match[2] ?? '' };
    } else if (current) current.text += `\n${line}`;
  }
  flush();
  return statements;
}

function shapes(statements: string[]): string[] {
  return [...new Set(statements.map(shapeOf).filter((s) => s.length > 0))].sort();
}

async function run(out: string, command: string[]): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'statement-capture-'));
  const postgres = await startPostgres(dir);
  const mysql = await startMariaDb(dir);
  console.log(`capture: PostgreSQL ${postgres.url}, MariaDB ${mysql.url}`);
  const child = spawn(command[0]!, command.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, DATABASE_URL: postgres.url, LEGACY_DATABASE_URL: mysql.url },
  });
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  for (const server of [postgres.server, mysql.server]) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.on('exit', resolve));
  }
  for (const [name, list] of [
    ['postgres', shapes(postgresStatements(postgres.log))],
    ['mysql', shapes(mysqlStatements(mysql.log))],
  ] as const) {
    writeFileSync(`${out}.${name}.txt`, `${list.join('\n')}\n`);
    console.log(`capture: ${list.length} ${name} statement shapes in ${out}.${name}.txt`);
  }
  rmSync(dir, { recursive: true, force: true });
  return code;
}

function compare(before: string, after: string): number {
  let differences = 0;
  for (const name of ['postgres', 'mysql']) {
    const a = new Set(readFileSync(`${before}.${name}.txt`, 'utf8').split('\n').filter(Boolean));
    const b = new Set(readFileSync(`${after}.${name}.txt`, 'utf8').split('\n').filter(Boolean));
    const gone = [...a].filter((s) => !b.has(s));
    const added = [...b].filter((s) => !a.has(s));
    console.log(
      `${name}: ${a.size} before, ${b.size} after, ${gone.length} only before, ${added.length} only after`,
    );
    for (const s of gone) console.log(`  - ${s.slice(0, 400)}`);
    for (const s of added) console.log(`  + ${s.slice(0, 400)}`);
    differences += gone.length + added.length;
  }
  return differences === 0 ? 0 : 1;
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'run' && rest[0] === '--out' && rest[1] && rest[2] === '--' && rest.length > 3) {
  process.exitCode = await run(path.resolve(rest[1]), rest.slice(3));
} else if (mode === 'compare' && rest.length === 2) {
  process.exitCode = compare(rest[0]!, rest[1]!);
} else {
  console.error('usage: statement-capture.ts run --out PREFIX -- COMMAND… | compare BEFORE AFTER');
  process.exitCode = 2;
}
