// The statements the soak's PostgreSQL took over 100 ms to run: the server logs each one
// (log_min_duration_statement) with the application that sent it (log_line_prefix), the worker's
// connections are named `worker` and the gateway's `gateway` (common/databases.ts), so background
// statements are told from request statements. At the end, every one since the load began,
// grouped by application and statement shape; the worker's must be none (docs/decisions/0018).
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PostgresLogging } from '../../test/support/spare-postgres.js';

export const SLOW_STATEMENT_MS = 100;
/** The application name of the worker's connections: its statements are the background ones. */
export const BACKGROUND_APPLICATION = 'worker';

/**
 * Each statement over the threshold on one line: epoch time with ms, server process, application;
 * bind parameters left out (members' data, and long arrays).
 */
export function slowStatementLogging(): PostgresLogging {
  return {
    settings: {
      log_min_duration_statement: String(SLOW_STATEMENT_MS),
      log_line_prefix: '%n [%p] %a: ',
      log_parameter_max_length: '0',
    },
    file: join(tmpdir(), `soak-postgres-${Date.now()}.log`),
  };
}

export interface SlowStatement {
  /** When it ended (epoch ms). */
  at: number;
  /** Its connection's application_name ('' for none: the bench's own probes and checks). */
  application: string;
  ms: number;
  /** The statement with literals replaced and white space folded. */
  shape: string;
}

const ENTRY =
  /^(\d+\.\d+) \[\d+\] (.*?): LOG: {2}duration: ([\d.]+) ms {2}(?:statement|[a-z]+ [^:]*): ([\s\S]*)$/;

/** Numbers and quoted strings replaced by `?`, white space folded, at most 160 characters. */
function shapeOf(statement: string): string {
  const shape = statement
    .replace(/'(?:[^']|'')*'/g, '?')
    .replace(/(?<![$\w])-?\d+(?:\.\d+)?\b/g, '?')
    .replace(/\s+/g, ' ')
    .trim();
  return shape.length > 160 ? `${shape.slice(0, 157)}...` : shape;
}

/** The statements logged in `file` over the threshold (a line without a prefix continues one). */
export function readSlowStatements(file: string): SlowStatement[] {
  if (!existsSync(file)) return [];
  const entries: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\d+\.\d+ \[\d+\] /.test(line)) entries.push(line);
    else if (entries.length > 0) entries[entries.length - 1] += `\n${line}`;
  }
  return entries.flatMap((entry) => {
    const match = ENTRY.exec(entry);
    if (!match) return [];
    const [, epoch, application, ms, statement] = match;
    return [
      {
        at: Number(epoch) * 1000,
        // PostgreSQL writes a connection without a name as [unknown].
        application: application === '[unknown]' ? '' : application!,
        ms: Number(ms),
        shape: shapeOf(statement!),
      },
    ];
  });
}

/** Every slow statement grouped by application and shape (count, max ms), the longest first. */
export function printSlowStatements(statements: SlowStatement[], file: string): void {
  const groups = new Map<
    string,
    { application: string; shape: string; count: number; max: number }
  >();
  for (const s of statements) {
    const key = `${s.application}\n${s.shape}`;
    const group = groups.get(key) ?? {
      application: s.application,
      shape: s.shape,
      count: 0,
      max: 0,
    };
    group.count += 1;
    group.max = Math.max(group.max, s.ms);
    groups.set(key, group);
  }
  console.log(
    `\nstatements over ${SLOW_STATEMENT_MS} ms since the load began (PostgreSQL's log, ${file}): ` +
      (statements.length === 0 ? 'none' : String(statements.length)),
  );
  const sorted = [...groups.values()].sort(
    (a, b) => a.application.localeCompare(b.application) || b.max - a.max,
  );
  for (const g of sorted) {
    console.log(
      `  ${g.application || '(bench)'}: ${g.count} ×, max ${g.max.toFixed(0)} ms: ${g.shape}`,
    );
  }
}

/** The statements the worker sent: background work, never a request's. */
export const backgroundOf = (statements: SlowStatement[]) =>
  statements.filter((s) => s.application === BACKGROUND_APPLICATION);
