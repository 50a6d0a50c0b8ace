// Every ten seconds, the CPU each kind of process on the machine used: the soak's own processes
// by name (gateway 1, worker, the load processes), every other by its command (postgres,
// mariadbd, redis-server...). Kept for the file written at the end, beside every answer: a slow
// minute of a report can then be laid against who was busy in it.
import { readdirSync, readFileSync } from 'node:fs';
import { processCpuMs } from '../gateway/processes.js';

const EVERY_MS = 10_000;

export interface CpuInterval {
  /** Epoch ms at the interval's end. */
  at: number;
  /** Share of one core over the interval, by name. */
  percent: Record<string, number>;
}

/** Each running process's command name, by pid (/proc). */
function commands(): Map<number, string> {
  const found = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      found.set(Number(entry), readFileSync(`/proc/${entry}/comm`, 'utf8').trim());
    } catch {
      // Gone since the listing.
    }
  }
  return found;
}

/** Starts sampling; `named` gives the soak's own pids their names. Stop it to get the timeline. */
export function startCpuTimeline(named: () => Map<number, string>) {
  const timeline: CpuInterval[] = [];
  let before = new Map<number, number>();
  let at = Date.now();
  const sample = () => {
    const now = Date.now();
    const names = named();
    const current = new Map<number, number>();
    const used = new Map<string, number>();
    for (const [pid, command] of commands()) {
      const ms = processCpuMs(pid);
      current.set(pid, ms);
      const name = names.get(pid) ?? command;
      // A process born in the interval counts from its start.
      used.set(name, (used.get(name) ?? 0) + ms - (before.get(pid) ?? 0));
    }
    if (before.size > 0) {
      const percent: Record<string, number> = {};
      for (const [name, ms] of used) {
        const share = (ms / (now - at)) * 100;
        if (share >= 1) percent[name] = Math.round(share);
      }
      timeline.push({ at: now, percent });
    }
    [before, at] = [current, now];
  };
  sample();
  const timer = setInterval(sample, EVERY_MS);
  return {
    stop(): CpuInterval[] {
      clearInterval(timer);
      return timeline;
    },
  };
}
