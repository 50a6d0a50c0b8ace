// Shared by the spare database servers: free ports, a private temp dir owned by the server's OS
// user (the servers refuse to run as root), and signals to a server's whole process tree so a
// "frozen" server is frozen entirely (postmaster and every backend), the way SIGSTOP on a
// container or a stalled VM would freeze it.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether `port` can be listened on, on every interface (as the product's listeners do). */
async function listenable(port: number): Promise<boolean> {
  const server = createServer();
  const ok = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, () => resolve(true));
  });
  if (ok) await new Promise((resolve) => server.close(resolve));
  return ok;
}

/**
 * Two free neighbouring ports, `port` and `port + 1` (the demo's gateway and worker metrics).
 * Drawn below the kernel's ephemeral range (32768 and up), where every port 0 of the parallel
 * files lands: a neighbour of a port the kernel just handed out is often taken a moment later.
 */
export async function freePortPair(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if ((await listenable(port)) && (await listenable(port + 1))) return port;
  }
}

export interface OsUser {
  uid: number;
  gid: number;
}

export function osUser(name: string): OsUser {
  const id = (flag: string) => Number(execFileSync('id', [flag, name]).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** A fresh directory the given user owns; removed by removeDir. */
export function privateDir(prefix: string, owner: OsUser | null): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  return dir;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** The pid and the pids of all its descendants, from /proc. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  const tree: number[] = [];
  const visit = (p: number) => {
    tree.push(p);
    for (const child of children.get(p) ?? []) visit(child);
  };
  visit(pid);
  return tree;
}

export function signalTree(pid: number, signal: 'SIGSTOP' | 'SIGCONT'): void {
  for (const p of processTree(pid)) {
    try {
      process.kill(p, signal);
    } catch {
      // Gone already.
    }
  }
}

/** Servers started by this test process, killed after each file and when it exits. */
const alive = new Set<ChildProcess>();

/** Kills every spare server still running (thawed first, or SIGKILL waits); how many. */
export function killLeftoverServers(): number {
  const left = alive.size;
  for (const child of alive) {
    if (child.pid) signalTree(child.pid, 'SIGCONT');
    child.kill('SIGKILL');
  }
  alive.clear();
  return left;
}
process.once('exit', killLeftoverServers);

export function track(child: ChildProcess): void {
  alive.add(child);
  child.once('exit', () => alive.delete(child));
}

export function waitForOutput(child: ChildProcess, ready: RegExp, what: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}): ${output}`)));
  });
}

export async function stopChild(child: ChildProcess | null, signal: NodeJS.Signals) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  if (child.pid) signalTree(child.pid, 'SIGCONT');
  await new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill(signal);
  });
}

/**
 * A server of the test's own on a spare loopback port, which the test can stop, start again on
 * the same port (and data), freeze and thaw. Each kind says how it is spawned, what it prints
 * once ready, and which signal stops it.
 */
export abstract class SpareServer {
  private child: ChildProcess | null = null;

  protected constructor(
    readonly port: number,
    /** Its data and socket files; removed by destroy. */
    protected readonly dir: string,
  ) {}

  protected abstract spawnServer(): ChildProcess;
  protected abstract readonly readyLine: RegExp;
  /** The server's own shutdown, as stop() asks for it. */
  protected abstract readonly stopSignal: NodeJS.Signals;
  /** How destroy() ends it at once. */
  protected readonly killSignal: NodeJS.Signals = 'SIGKILL';

  async start(): Promise<void> {
    const child = this.spawnServer();
    track(child);
    this.child = child;
    await waitForOutput(child, this.readyLine, this.constructor.name);
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    await stopChild(child, this.stopSignal);
  }

  /** SIGSTOP on the server's whole process tree: connections stay open, nothing answers. */
  freeze(): void {
    if (this.child?.pid) signalTree(this.child.pid, 'SIGSTOP');
  }

  thaw(): void {
    if (this.child?.pid) signalTree(this.child.pid, 'SIGCONT');
  }

  async destroy(): Promise<void> {
    const child = this.child;
    this.child = null;
    await stopChild(child, this.killSignal);
    removeDir(this.dir);
  }
}

/** Polls until check() returns true, or throws with what it last saw. */
export async function waitUntil(
  what: string,
  timeoutMs: number,
  check: () => Promise<boolean>,
  stepMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return;
      last = 'not yet';
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: not within ${timeoutMs} ms (last: ${String(last)})`);
    }
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}
