// A process of the soak (a gateway, the worker) as an orchestrator keeps it: one that exits on
// its own is noted as a crash and started again, as a container would be, so the run goes on and
// the verdict counts it; one the bench kills on purpose (a fault) or stops is not a crash.
import { onInterrupt } from '../cleanup.js';
import type { Started } from '../gateway/processes.js';

export interface Crash {
  what: string;
  /** Epoch ms. */
  at: number;
  how: string;
}

export class Supervised {
  current: Started;
  /** Set while the bench itself kills or stops the process. */
  private quiet = false;

  constructor(
    readonly name: string,
    first: Started,
    private readonly start: () => Promise<Started>,
    private readonly crashes: Crash[],
  ) {
    this.current = first;
    this.watch(first);
    // Ctrl-C reaches the whole process group: its processes stop, and are not started again.
    onInterrupt(() => {
      this.quiet = true;
      return Promise.resolve();
    });
  }

  private watch(process: Started): void {
    process.child.once('exit', (code, signal) => {
      if (this.quiet || process !== this.current) return;
      const how = signal ?? `exit code ${code}`;
      this.crashes.push({ what: this.name, at: Date.now(), how });
      console.log(`\n!! ${this.name} exited on its own (${how}): started again`);
      void this.start().then(
        (next) => {
          this.current = next;
          this.watch(next);
        },
        (error: unknown) => console.log(`!! ${this.name} could not start again: ${String(error)}`),
      );
    });
  }

  /** SIGKILL, then the same process started again (on the same port for a gateway). */
  async killAndRestart(): Promise<void> {
    this.quiet = true;
    const exited = new Promise((resolve) => this.current.child.once('exit', resolve));
    this.current.child.kill('SIGKILL');
    await exited;
    this.current = await this.start();
    this.quiet = false;
    this.watch(this.current);
  }

  /** Resident set size now, in MB; NaN while no process runs. */
  rssMb(): number {
    try {
      return this.current.rssMb();
    } catch {
      return NaN;
    }
  }

  /** CPU time of the current process so far, in ms; NaN while no process runs. */
  cpuMs(): number {
    try {
      return this.current.cpuMs();
    } catch {
      return NaN;
    }
  }

  stop(): Promise<void> {
    this.quiet = true;
    return this.current.stop();
  }
}
