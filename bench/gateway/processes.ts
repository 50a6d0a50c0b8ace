// The benchmarks' processes, each on its own: the gateway and the sync worker as production runs
// them (compiled, `node dist/...`, production log level) and the bare baseline.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
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

function started(child: ChildProcess, port: number): Started {
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
  const statusMb = (field: string) => {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    startedAt: Date.now(),
    rssMb: () => statusMb('VmRSS'),
    peakRssMb: () => statusMb('VmHWM'),
    cpuMs() {
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      // utime and stime, in clock ticks (100 a second on Linux).
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    stop,
  };
}

async function waitUntilAnswering(url: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`${url}: not answering`);
}

/**
 * The node arguments of `npm run gateway` or `npm run worker` (heap bounds, entry point):
 * production's command.
 */
export function productionCommand(name: 'gateway' | 'worker'): string[] {
  const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as {
    scripts: Record<string, string>;
  };
  return scripts[name]!.split('&& node ')[1]!.split(' ');
}

/**
 * The gateway or the worker as production starts it (compiled, production's command and log
 * level), on free ports: the gateway's API on `url`, the worker's metrics there (/metrics,
 * /healthz); another process on this host may hold the default metrics port.
 */
async function startProduction(
  name: 'gateway' | 'worker',
  env: Record<string, string>,
  options: { profileDir?: string },
): Promise<Started> {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
  const port = await freePort();
  const ports =
    name === 'gateway'
      ? { PORT: String(port), METRICS_PORT: String(await freePort()) }
      : { METRICS_PORT: String(port) };
  const profile = options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [];
  const child = spawn(process.execPath, [...profile, ...productionCommand(name)], {
    env: { ...process.env, ...env, ...ports, LOG_LEVEL: 'info', NODE_ENV: 'production' },
    // Its log goes where a container's would: written out in full, read by nobody here.
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const server = started(child, port);
  try {
    await waitUntilAnswering(`${server.url}/${name === 'gateway' ? 'readyz' : 'healthz'}`, child);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

export const startGateway = (env: Record<string, string>, options: { profileDir?: string }) =>
  startProduction('gateway', env, options);

/** The sync worker; `url` is its metrics port (/metrics, /healthz). */
export const startWorker = (env: Record<string, string>, options: { profileDir?: string }) =>
  startProduction('worker', env, options);

export async function startBaseline(databaseUrl: string): Promise<Started> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/gateway/baseline-server.ts', String(port)],
    { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const baseline = started(child, port);
  await once(child.stdout, 'data');
  return baseline;
}
