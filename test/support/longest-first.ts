// The order the suite's files start in. Beside each other, the files share two cores: a long file
// started last keeps one process busy alone at the end (resilience-shutdown-worker, 70 s, started
// 437 s into a 506 s group). The longest start first (longest-processing-time scheduling), in the
// order of their last figures; every other file in vitest's order (its cached durations, else the
// largest file first). A file missing here costs only its place, never a result.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds in the last full run, longest first (re-measured when the list is touched). */
const LONGEST = [
  'test/clients-cli.test.ts', // 71
  'test/resilience-shutdown-worker.test.ts', // 70
  'test/webhooks-retries.test.ts', // 66
  'test/resilience-postgres.test.ts', // 54
  'test/webhooks-fairness.test.ts', // 51
  'test/sync-crash.test.ts', // 45
  'test/traces.test.ts', // 45
  'test/workers-scale.test.ts', // 43
  'test/portal-browser.test.ts', // 42
  'test/webhooks-rights.test.ts', // 39
  'test/webhooks-cli.test.ts', // 38
  'test/console-security.test.ts', // 36
  'test/resilience-worker.test.ts', // 34
  'test/webhooks-faults.test.ts', // 28
  'test/sync-randomized.test.ts', // 27
  'test/webhooks-sweep.test.ts', // 26
  'test/sync-binlog-operations.test.ts', // 25
  'test/resilience-mariadb.test.ts', // 24
  'test/console-oidc.test.ts', // 24
  'test/console-browser-pages.test.ts', // 22
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // vitest's order keeps each project's files together, in the order the projects run.
    const firstOfProject = new Map<string, number>();
    sorted.forEach((spec, i) => {
      if (!firstOfProject.has(spec.project.name)) firstOfProject.set(spec.project.name, i);
    });
    const rank = (spec: TestSpecification) => {
      const at = LONGEST.indexOf(relative(this.ctx.config.root, spec.moduleId));
      return at === -1 ? LONGEST.length : at;
    };
    const key = (spec: TestSpecification, i: number) =>
      [firstOfProject.get(spec.project.name)!, rank(spec), i] as const;
    return sorted
      .map((spec, i) => ({ spec, key: key(spec, i) }))
      .sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.key[2] - b.key[2])
      .map(({ spec }) => spec);
  }
}
