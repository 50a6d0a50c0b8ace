// What the soak's load processes report, kept for the run: every answer (time, group, latency,
// status) and every legacy change's commit → visible, read back per report interval.
import type { ChildProcess } from 'node:child_process';
import { percentile } from '../lag-writes.js';
import { latencyByGroup, SLOW_MS, type openProbes, type Snapshot } from './measure.js';
import type { ApiMessage, Sample, WriterMessage } from './messages.js';

type Lag = Extract<WriterMessage, { kind: 'lags' }>['lags'][number];

/** Answers other than 2xx by group and status. */
function refusalsOf(answers: Sample[]): Record<string, number> {
  const refusals: Record<string, number> = {};
  for (const [, group, , status] of answers) {
    if (status >= 200 && status < 300) continue;
    const key = `${group} ${status}`;
    refusals[key] = (refusals[key] ?? 0) + 1;
  }
  return refusals;
}

export class Recording {
  readonly samples: Sample[] = [];
  private readonly lags: Lag[] = [];
  private legacyChanges = 0;

  listen(writer: ChildProcess, api: ChildProcess): void {
    writer.on('message', (m: WriterMessage) => {
      if (m.kind !== 'lags') return;
      this.lags.push(...m.lags);
      this.legacyChanges = m.changes;
    });
    api.on('message', (m: ApiMessage) => {
      if (m.kind === 'samples') this.samples.push(...m.samples);
    });
  }

  /** The figures of [from, to), with the servers' and processes' state now. */
  async snapshot(
    from: number,
    to: number,
    rssMb: Record<string, number>,
    cpuPercent: Record<string, number>,
    probes: ReturnType<typeof openProbes>,
  ): Promise<Snapshot> {
    const answers = this.samples.filter(([at]) => at >= from && at < to);
    const lags = this.lags.filter((l) => l.at >= from && l.at < to);
    const sorted = (polled: boolean) =>
      lags
        .filter((l) => l.polled === polled)
        .map((l) => l.ms)
        .sort((a, b) => a - b);
    const polled = sorted(true);
    const slowByMinute = Array.from({ length: Math.ceil((to - from) / 60_000) }, () => 0);
    for (const [at, , latency, status] of answers)
      if (status !== 0 && latency > SLOW_MS) slowByMinute[Math.floor((at - from) / 60_000)]! += 1;
    return {
      at: to,
      rssMb,
      cpuPercent,
      ...(await probes.storage()),
      ...(await probes.redis()),
      groups: latencyByGroup(answers),
      serverErrors: answers.filter(([, , , status]) => status >= 500).length,
      unanswered: answers.filter(([, , , status]) => status === 0).length,
      refusals: refusalsOf(answers),
      slowByMinute,
      lagP99Ms: percentile(polled, 99),
      reconciledLagP99Ms: percentile(sorted(false), 99),
      lagCount: polled.length,
      changes:
        this.legacyChanges + this.samples.filter(([, group]) => group === 'member writes').length,
      requests: this.samples.length,
    };
  }
}
