// What a benchmark makes outside its own memory is gone when it ends: its temporary directories
// (wrk's request scripts, CPU profiles), its throwaway environment (PostgreSQL and MySQL
// databases, MySQL users, Redis keys) and the processes it started, whether the run finishes,
// fails or is interrupted. Each benchmark removes what it made in its own `finally`; an interrupt
// (Ctrl-C, SIGTERM) would skip those, so what is still there is then removed here before leaving.
import { mkdtempSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '#common/config.js';
import {
  createThrowawayEnvironment,
  serverUrlsOf,
  type EnvironmentOptions,
  type ServerUrls,
  type ThrowawayEnvironment,
} from '../scripts/throwaway-environment.js';

const tempDirs = new Set<string>();
const atInterrupt = new Set<() => Promise<unknown>>();

/** A new directory under os.tmpdir(), removed by removeTempDir or, at the latest, on exit. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

// However the process ends (done, an uncaught error, process.exit), no directory stays.
process.on('exit', () => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs `task` if the run is interrupted before the returned function is called. */
export function onInterrupt(task: () => Promise<unknown>): () => void {
  atInterrupt.add(task);
  return () => atInterrupt.delete(task);
}

/**
 * A throwaway environment on the configured servers (or on `servers`, a benchmark's own), whose
 * destroy() runs once: from the benchmark's `finally`, or from an interrupt, which also catches
 * an environment still being created (its destroy waits for it).
 */
export async function benchEnvironment(
  namePrefix: string,
  servers: ServerUrls = serverUrlsOf(loadConfig()),
  options: EnvironmentOptions = {},
): Promise<ThrowawayEnvironment> {
  const creating = createThrowawayEnvironment(servers, namePrefix, options);
  let destroying: Promise<void> | undefined;
  const destroy = (): Promise<void> =>
    (destroying ??= creating
      .then((env) => env.destroy())
      .finally(() => atInterrupt.delete(destroy)));
  atInterrupt.add(destroy);
  try {
    return { ...(await creating), destroy };
  } catch (error) {
    atInterrupt.delete(destroy);
    throw error;
  }
}

/**
 * Every step in turn, each one even when one before it failed, then the first failure: a
 * `finally` whose first step throws still drops the databases and removes the files.
 */
export async function releaseInTurn(...steps: (() => unknown)[]): Promise<void> {
  let failure: { error: unknown } | undefined;
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
}

/**
 * On SIGINT or SIGTERM: the registered clean-ups (processes stopped, environments dropped; at
 * most a minute), then exit 128 + the signal; the exit handler removes the temporary directories.
 * A second signal leaves at once.
 */
export function cleanUpOnInterrupt(): void {
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      const code = 128 + constants.signals[signal];
      if (interrupted) process.exit(code);
      interrupted = true;
      console.error(
        `\n${signal}: stopping the bench's processes, dropping its databases, removing its temporary files (${signal} again to leave at once)`,
      );
      const tasks = [...atInterrupt].map((task) => task());
      void Promise.race([Promise.allSettled(tasks), sleep(60_000)]).then(() => process.exit(code));
    });
  }
}
