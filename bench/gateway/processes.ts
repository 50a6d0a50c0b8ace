// The benchmarks' processes, each on its own: the gateway and the sync worker as production runs
// them (compiled, `node dist/...`, production log level), the bare baseline and the OTLP sink.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { productionCommand } from '../../scripts/production-command.js';
import { onInterrupt } from '../cleanup.js';

export interface Started {
  url: string;
  child: ChildProcess;
  /** When the process was spawned (Date.now()), after the build check before it. */
  startedAt: number;
  /** Resident set size now, in MB (Linux /proc). */
  rssMb(): number;
  /** Peak resident set size so far (VmHWM), in MB (Linux /proc). */
  peakRssMb(): number;
  /** CPU time used so far (user + system), in ms (Linux /proc). */
  cpuMs(): number;
  stop(): Promise<void>;
}

/** A port free right now; the server binds it a moment later. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** CPU time used so far by a process (user + system), in ms (Linux /proc); 0 once it is gone. */
export function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/**
 * `child` on `port`; its figures (RSS, CPU) are the sums over `pids`: the child alone, or the
 * child and the processes it runs (a cluster's primary and workers).
 */
function started(
  child: ChildProcess,
  port: number,
  pids: () => number[] = () => [child.pid!],
): Started {
  const stop = async () => {
    forget();
    // Gone already: ended on its own, or by a signal (Ctrl-C reaches the whole process group).
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
  };
  // A SIGTERM to the bench alone would otherwise leave the process running.
  const forget = onInterrupt(stop);
  child.once('exit', forget);
  const statusMb = (field: string) =>
    pids().reduce((sum, pid) => {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      return sum + Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
    }, 0);
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    startedAt: Date.now(),
    rssMb: () => statusMb('VmRSS'),
    peakRssMb: () => statusMb('VmHWM'),
    cpuMs: () => pids().reduce((sum, pid) => sum + processCpuMs(pid), 0),
    stop,
  };
}

/**
 * Until `url` answers 2xx, at most three minutes: a process starting while others run beside it
 * on a busy machine (bench/upgrade.ts) may take a minute and more where it takes seconds alone.
 */
async function waitUntilAnswering(url: string, child: ChildProcess): Promise<void> {
  for (const deadline = Date.now() + 180_000; Date.now() < deadline;) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`${url}: not answering within three minutes`);
}

export interface ProductionOptions {
  profileDir?: string;
  /** The build check has been done (processes started at once must not each run it). */
  built?: boolean;
  /** The gateway only: that many gateway processes behind its one port (cluster-launcher.ts). */
  processes?: number;
  /** Its port (a process started again where its clients expect it); else a free one. */
  port?: number;
  /**
   * Another checkout, built, whose release to run (bench/upgrade.ts: the release before an
   * upgrade); this one by default.
   */
  cwd?: string;
}

/** Production's processes refuse to start without SECRETS_KEY; the benchmarks' is public. */
export const BENCH_SECRETS_KEY = Buffer.from('benchmark key, public, 32 bytes!').toString('base64');

/** `node scripts/build.mjs --if-stale`, as every production script runs it first. */
export function buildIfStale(): void {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
}

/** The worker pids a cluster launcher prints once every one listens (`ready <pid>…`). */
function clusterReady(child: ChildProcess): Promise<number[]> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timeout = setTimeout(
      () => reject(new Error('gateway cluster: not ready in 30 s')),
      30_000,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /^ready ([\d ]+)$/m.exec(out);
      if (!ready) return;
      clearTimeout(timeout);
      resolve(ready[1]!.split(' ').map(Number));
    });
    child.once('exit', (code) => {
      clearTimeout(timeout);
      reject(new Error(`gateway cluster exited (${code}) before it was ready`));
    });
  });
}

/**
 * The gateway or the worker as production starts it (compiled, production's command and log
 * level), on free ports: the gateway's API on `url`, the worker's metrics there (/metrics,
 * /healthz); another process on this host may hold the default metrics port. With `processes`,
 * the gateway runs that many processes under cluster-launcher.ts, whose figures (RSS, CPU) are
 * the sums over the launcher and its gateway processes.
 */
/** Where a process's log goes: a file of its own under BENCH_LOG_DIR (made if new), or nowhere. */
function logFile(name: string, port: number): number | 'ignore' {
  const dir = process.env.BENCH_LOG_DIR;
  if (!dir) return 'ignore';
  mkdirSync(dir, { recursive: true });
  return openSync(path.join(dir, `${name}-${port}.log`), 'a');
}

async function startProduction(
  name: 'gateway' | 'worker',
  env: Record<string, string>,
  options: ProductionOptions,
): Promise<Started> {
  if (!options.built) buildIfStale();
  const port = options.port ?? (await freePort());
  const ports =
    name === 'gateway'
      ? { PORT: String(port), METRICS_PORT: String(await freePort()) }
      : { METRICS_PORT: String(port) };
  const profile = options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [];
  const command = [...profile, ...productionCommand(name, options.cwd)];
  const cluster = options.processes !== undefined;
  const launcher = ['--import', 'tsx', 'bench/gateway/cluster-launcher.ts', `${options.processes}`];
  const child = spawn(process.execPath, cluster ? [...launcher, ...command] : command, {
    cwd: options.cwd,
    env: {
      ...process.env,
      SECRETS_KEY: BENCH_SECRETS_KEY,
      ...env,
      ...ports,
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
    },
    // Its log goes where a container's would: written out in full, read by nobody here unless
    // BENCH_LOG_DIR names a folder for it (a file per process). A cluster launcher's stdout says
    // when its processes are ready.
    stdio: ['ignore', cluster ? 'pipe' : logFile(name, port), 'inherit'],
  });
  const pids = [child.pid!];
  const server = started(child, port, () => pids);
  try {
    if (cluster) pids.push(...(await clusterReady(child)));
    await waitUntilAnswering(`${server.url}/${name === 'gateway' ? 'readyz' : 'healthz'}`, child);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

export const startGateway = (env: Record<string, string>, options: ProductionOptions) =>
  startProduction('gateway', env, options);

/** The sync worker; `url` is its metrics port (/metrics, /healthz). */
export const startWorker = (env: Record<string, string>, options: ProductionOptions) =>
  startProduction('worker', env, options);

/** A bench script of bench/gateway/ as its own process on a free port, once it prints `ready`. */
async function startScript(script: string, env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', script, String(port)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const server = started(child, port);
  await once(child.stdout, 'data');
  return server;
}

export const startBaseline = (databaseUrl: string) =>
  startScript('bench/gateway/baseline-server.ts', { DATABASE_URL: databaseUrl });

/** The OTLP/HTTP receiver the traced gateway exports to (otlp-sink.ts); `url` is its base URL. */
export const startOtlpSink = () => startScript('bench/gateway/otlp-sink.ts', {});
