// The load generator, always in its own process: wrk when installed (`apt-get install wrk`),
// otherwise autocannon's command line. Both report requests/s and latency percentiles. A load
// whose every request needs its own body (member creates: one phone each) needs wrk, whose Lua
// script builds each request.
import { execFile, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { makeTempDir, removeTempDir } from '../cleanup.js';

const run = promisify(execFile);

export interface LoadRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /**
   * A Lua expression evaluated for every request, giving its body (wrk only); `n` is the
   * request's sequence number within the run, from 1.
   */
  bodyOf?: string;
  /** A Lua expression evaluated for every request, giving its headers (wrk only). */
  headersOf?: string;
  /** Lua defining what `bodyOf` or `headersOf` call (wrk only). */
  lua?: string;
  connections: number;
  seconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  /** wrk only: autocannon's histogram has no 95th percentile. */
  p95Ms?: number;
  p99Ms: number;
  /** Answers other than 2xx, plus socket errors and timeouts. */
  failures: number;
  /** The server process's CPU time per answered request (filled in by the caller). */
  cpuMsPerRequest?: number;
}

function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // wrk --version exits 1 after printing its banner; only a missing binary throws ENOENT.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

export const loadGenerator = hasWrk() ? 'wrk' : 'autocannon';

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function wrkDuration(text: string, label: string): number {
  const match = new RegExp(`^\\s*${label}\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(text);
  if (!match) throw new Error(`wrk output without ${label}:\n${text}`);
  return Number(match[1]) * (UNIT_MS[match[2]!] ?? 1);
}

/** wrk with its request script in a directory of its own, removed once wrk is done. */
async function withWrk(request: LoadRequest): Promise<LoadResult> {
  const dir = makeTempDir('bench-wrk-');
  try {
    return await runWrk(request, path.join(dir, 'request.lua'));
  } finally {
    removeTempDir(dir);
  }
}

async function runWrk(request: LoadRequest, script: string): Promise<LoadResult> {
  const headerLines = Object.entries(request.headers)
    .map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`)
    .join('\n');
  const body = request.body ? `wrk.body = ${JSON.stringify(request.body)}\n` : '';
  // wrk.format is wrk's own request builder; the default request is used when no body varies.
  const perRequest =
    request.bodyOf || request.headersOf
      ? `${request.lua ?? ''}\nlocal n = 0\nrequest = function()\n  n = n + 1\n  return wrk.format(nil, nil, ${request.headersOf ?? 'nil'}, ${request.bodyOf ?? 'nil'})\nend\n`
      : '';
  // wrk prints p50/p75/p90/p99 only; the 95th comes from its latency histogram, in microseconds.
  const done =
    'done = function(summary, latency, requests)\n  io.write(string.format("p95 %d\\n", latency:percentile(95)))\nend\n';
  writeFileSync(
    script,
    `wrk.method = "${request.method}"\n${headerLines}\n${body}${perRequest}${done}`,
  );
  // One wrk thread: the machine has few cores and the gateway should get the rest.
  const { stdout } = await run('wrk', [
    '-t1',
    `-c${request.connections}`,
    `-d${request.seconds}s`,
    '--latency',
    '-s',
    script,
    request.url,
  ]);
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(stdout);
  const p95 = /^p95 (\d+)$/m.exec(stdout);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(
    stdout,
  );
  return {
    requestsPerSecond: Number(rps?.[1] ?? 0),
    p50Ms: wrkDuration(stdout, '50%'),
    p95Ms: Number(p95?.[1] ?? NaN) / 1000,
    p99Ms: wrkDuration(stdout, '99%'),
    failures:
      Number(non2xx?.[1] ?? 0) +
      (socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
  };
}

interface AutocannonJson {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

async function withAutocannon(request: LoadRequest): Promise<LoadResult> {
  if (request.bodyOf || request.headersOf)
    throw new Error('a body or headers per request need wrk (apt-get install wrk)');
  const cli = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  const args = [cli, '-j', '-c', String(request.connections), '-d', String(request.seconds)];
  args.push('-m', request.method);
  for (const [name, value] of Object.entries(request.headers)) args.push('-H', `${name}=${value}`);
  if (request.body) args.push('-b', request.body);
  const { stdout } = await run(process.execPath, [...args, request.url], {
    maxBuffer: 16 * 1024 * 1024,
  });
  const result = JSON.parse(stdout) as AutocannonJson;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

export function applyLoad(request: LoadRequest): Promise<LoadResult> {
  return loadGenerator === 'wrk' ? withWrk(request) : withAutocannon(request);
}
