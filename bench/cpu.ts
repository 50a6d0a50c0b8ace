// Who used the machine's CPU during a measurement (Linux /proc, clock ticks of 100 a second):
// the load generator (a child of this process, counted once it has exited), the servers by
// process name (PostgreSQL, Redis, MariaDB: the whole server, shared with anything else running),
// and processes the bench started. Figures are CPU ms; over a run of S seconds, ms / (S * 1000)
// is the cores in use.
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { processCpuMs } from './gateway/processes.js';

/** CPU ms of this process's children that have exited and been waited for (wrk, autocannon). */
export function exitedChildrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  // cutime and cstime, fields 16 and 17 of /proc/<pid>/stat.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

function pidsNamed(name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(Number(entry));
    } catch {
      // Ended meanwhile.
    }
  }
  return pids;
}

/**
 * The CPU ms so far of every process of that name (`postgres`, `redis-server`, `mariadbd`): each
 * one seen keeps its last figure, so a backend that ends between two samples still counts up to
 * the earlier one; 0 when there is none (a server on another machine).
 */
export function namedProcessesCpu(name: string): () => number {
  const lastMs = new Map<number, number>();
  return () => {
    for (const pid of pidsNamed(name)) {
      const ms = processCpuMs(pid);
      if (ms > 0) lastMs.set(pid, ms);
    }
    return [...lastMs.values()].reduce((a, b) => a + b, 0);
  };
}

/**
 * CPU ms the whole machine has been busy so far, over all its cores (/proc/stat: user, nice,
 * system, irq, softirq, steal); counted as `machine`, it shows what else used the cores.
 */
export function machineBusyMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [user, nice, system, , , irq, softirq, steal] = line.split(/\s+/).slice(1).map(Number);
  return (
    ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 10
  );
}

export type CpuCounters = Record<string, () => number>;
export type CpuSnapshot = Record<string, number>;

export const snapshotCpu = (counters: CpuCounters): CpuSnapshot =>
  Object.fromEntries(Object.entries(counters).map(([name, ms]) => [name, ms()]));

/** Cores in use per counter between two snapshots `seconds` apart. */
export function coresBetween(
  before: CpuSnapshot,
  after: CpuSnapshot,
  seconds: number,
): CpuSnapshot {
  return Object.fromEntries(
    Object.keys(after).map((name) => [
      name,
      (after[name]! - (before[name] ?? 0)) / 1000 / Math.max(seconds, 0.001),
    ]),
  );
}

/**
 * `wrk 0.45, gateway 1.20, PostgreSQL 0.30, anything else 0.05 (machine busy 2.00 of 2 cores)`:
 * `machine`, when counted, is the whole machine, and what the others leave of it is shown apart.
 */
export function formatCores(cores: CpuSnapshot): string {
  const { machine, ...named } = cores;
  const sum = Object.values(named).reduce((a, b) => a + b, 0);
  const parts = Object.entries(named).map(([name, n]) => `${name} ${n.toFixed(2)}`);
  const of = `of ${availableParallelism()} cores`;
  if (machine === undefined) return `${parts.join(', ')} = ${sum.toFixed(2)} ${of}`;
  const rest = Math.max(0, machine - sum);
  return `${parts.join(', ')}, anything else ${rest.toFixed(2)} (machine busy ${machine.toFixed(2)} ${of})`;
}

/** The mean of each counter over several runs' figures. */
export function meanCores(runs: CpuSnapshot[]): CpuSnapshot {
  const names = Object.keys(runs[0] ?? {});
  return Object.fromEntries(
    names.map((name) => [
      name,
      runs.reduce((sum, run) => sum + (run[name] ?? 0), 0) / Math.max(1, runs.length),
    ]),
  );
}
