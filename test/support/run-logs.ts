// Every log line the test gateways and workers write during a run goes to one file, and every
// credential the tests hand out (client secrets, access and refresh tokens) is noted beside it.
// When the run ends, global-setup.ts fails it if any noted credential, or anything shaped like
// one, appears in that log: no test has to remember to look.
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createLogger, type Logger } from '#common/logger.js';

const CREDENTIAL_SHAPES = [
  /Bearer\s+[A-Za-z0-9._~+/-]{16,}/,
  /Basic\s+[A-Za-z0-9+/=]{16,}/,
  /scrypt\$\d+\$/,
  /hmac-sha256\$[A-Za-z0-9_-]{8}\$/,
  /\$2[aby]\$\d{2}\$/,
];

export const runLogDir = (runId: string) => join(tmpdir(), `dashboard-api-logs-${runId}`);
const logFile = (runId: string) => join(runLogDir(runId), 'log.ndjson');
const credentialFile = (runId: string) => join(runLogDir(runId), 'credentials.txt');

/** A logger at `info` writing into the run's log file. */
export function runLogger(runId: string, name: string): Logger {
  mkdirSync(runLogDir(runId), { recursive: true });
  const destination = pino.destination({ dest: logFile(runId), append: true, sync: true });
  return createLogger({ level: 'info', name, destination });
}

export function noteCredentials(runId: string, ...values: string[]): void {
  mkdirSync(runLogDir(runId), { recursive: true });
  appendFileSync(credentialFile(runId), values.map((v) => `${v}\n`).join(''));
}

/** What is wrong with the run's log (credentials found), then the files are removed. */
export function auditRunLogs(runId: string): string[] {
  if (!existsSync(logFile(runId))) return [];
  try {
    const log = readFileSync(logFile(runId), 'utf8');
    const credentials = existsSync(credentialFile(runId))
      ? readFileSync(credentialFile(runId), 'utf8')
          .split('\n')
          .filter((v) => v.length > 8)
      : [];
    const problems = [];
    const leaked = credentials.filter((c) => log.includes(c)).length;
    if (leaked > 0) problems.push(`${leaked} handed-out secret(s) or token(s) appear in the log`);
    for (const shape of CREDENTIAL_SHAPES) {
      if (shape.test(log)) problems.push(`the log holds something shaped like ${String(shape)}`);
    }
    if (log.length === 0)
      problems.push('the run wrote no log at all: the audit would prove nothing');
    return problems;
  } finally {
    rmSync(runLogDir(runId), { recursive: true, force: true });
  }
}
