// Runs the real gateway or worker entry point as a child process, the way an operator does,
// and reads its JSON log lines: for signals, exit codes and everything main.ts owns.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { productionCommand } from '../../scripts/production-command.js';
import { TEST_SECRETS_KEY, type TestEnvironment } from './environment.js';

export interface LogLine {
  msg?: string;
  level?: number;
  [field: string]: unknown;
}

export interface RunningProcess {
  child: ChildProcess;
  lines: LogLine[];
  /** Everything written to stderr: a well-behaved process writes nothing there. */
  stderr(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  waitForLine(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  kill(): void;
}

const running = new Set<ChildProcess>();

/**
 * Kills every gateway and worker this test process started and has not seen exit; how many.
 * Called after each file (setup-file.ts): test processes run many files, and a process a failing
 * or careless file leaves behind would run, and take CPU from the timed files, until the end.
 */
export function killLeftoverProcesses(): number {
  const left = running.size;
  for (const child of running) child.kill('SIGKILL');
  running.clear();
  return left;
}
process.once('exit', killLeftoverProcesses);

export function environmentVariables(env: TestEnvironment): Record<string, string> {
  return {
    DATABASE_URL: env.databaseUrl,
    LEGACY_DATABASE_URL: env.legacyReadOnlyUrl,
    REDIS_URL: env.redisUrl,
    REDIS_PREFIX: env.redisPrefix,
    PORT: '0',
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    SECRETS_KEY: TEST_SECRETS_KEY,
    SYNC_SOURCE: env.config().sync.source,
    // Made by the tests that use it (test/support/sandbox.ts).
    SANDBOX: 'off',
  };
}

/** How a process is started: node's arguments and its working directory. */
export interface ProcessCommand {
  args: string[];
  cwd: string;
}

/**
 * The compiled entry point as production runs it (its npm script's node command; the run's global
 * set-up built it), unless `command` says otherwise.
 */
export function startProcess(
  kind: 'gateway' | 'worker',
  variables: Record<string, string>,
  command: ProcessCommand = { args: productionCommand(kind), cwd: process.cwd() },
): RunningProcess {
  const child = spawn(process.execPath, command.args, {
    cwd: command.cwd,
    env: { ...process.env, ...variables },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  running.add(child);
  const lines: LogLine[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout }).on('line', (text) => {
    try {
      lines.push(JSON.parse(text) as LogLine);
    } catch {
      lines.push({ msg: `(not JSON) ${text}` });
    }
    for (const wake of waiters) wake();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      for (const wake of waiters) wake();
      resolve(code);
    }),
  );

  function waitForLine(match: (line: LogLine) => boolean, timeoutMs = 30_000): Promise<LogLine> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no such ${kind} log line within ${timeoutMs} ms`));
      }, timeoutMs);
      function check() {
        const found = lines.find(match);
        if (found) {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        } else if (child.exitCode !== null) {
          clearTimeout(timer);
          waiters.delete(check);
          reject(new Error(`${kind} exited (${child.exitCode}) before the log line`));
        }
      }
      waiters.add(check);
      check();
    });
  }

  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    waitForLine,
    kill: () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/** Starts the gateway and resolves with its base URL once it listens. */
export async function startGatewayProcess(variables: Record<string, string>) {
  const gateway = startProcess('gateway', variables);
  const line = await gateway.waitForLine((l) => l.msg === 'gateway listening');
  return { ...gateway, url: `http://127.0.0.1:${line.port as number}` };
}
