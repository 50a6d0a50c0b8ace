import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * Files whose assertions time something on the machine (a latency against its value alone, a
 * deadline of a second, a number of rounds within a time) run one at a time after the rest, so
 * another file's load never decides them. They hold those tests alone: the untimed tests of the
 * same feature, and those whose bound is many times what they take, are in files of their own
 * beside them (console-browser-pages, clients-rotate-secret, auth-refresh-chains, portal-security,
 * resilience-shutdown-worker), since this group's every second adds to the run's. Also here:
 * read-model-order-held and webhooks-dispatch-claims, which hold a transaction open for seconds,
 * and with it every other file's change feed on the shared server. Every other file brings its
 * own databases and Redis prefix, and runs beside others.
 */
const TIMED = [
  'test/auth-operator-control.test.ts',
  'test/clients-rotate-overlap.test.ts',
  'test/migrations-lock-waits.test.ts',
  'test/console-browser.test.ts',
  'test/console-sync.test.ts',
  'test/portal-sessions-end.test.ts',
  'test/read-model-order.test.ts',
  'test/read-model-order-held.test.ts',
  'test/resilience-shutdown.test.ts',
  'test/sync-lag.test.ts',
  'test/webhooks-fanout.test.ts',
  'test/webhooks-dispatch-claims.test.ts',
];
/** Files at once in the first group: most of a file's time is spent waiting on its servers. */
const PARALLEL_FILES = 3;

/**
 * The first group's longest files (20 s to a minute each, most of it waiting: outages, back-off
 * floors, overlaps), started first, longest first, so that none of them starts late and ends the
 * group alone. Vitest orders by the last run's durations where it has them; a clean clone has
 * none, and would order by file size. Roughly, from a run's report; the order is what matters.
 */
const LONGEST_FIRST = [
  'test/webhooks-retries.test.ts',
  'test/resilience-postgres.test.ts',
  'test/webhooks-fairness.test.ts',
  'test/resilience-shutdown-worker.test.ts',
  'test/clients-cli.test.ts',
  'test/sync-crash.test.ts',
  'test/resilience-worker.test.ts',
  'test/webhooks-rights.test.ts',
  'test/webhooks-faults.test.ts',
  'test/sync-binlog-operations.test.ts',
  'test/console-security.test.ts',
  'test/resilience-mariadb.test.ts',
  'test/webhooks-sweep.test.ts',
  'test/sync-randomized.test.ts',
  'test/traces.test.ts',
  'test/webhooks-retention.test.ts',
  'test/webhooks-slow-endpoint.test.ts',
  'test/portal-browser.test.ts',
  'test/workers-scale.test.ts',
  'test/clients-rotate-secret.test.ts',
];

/** Vitest's order, with LONGEST_FIRST ahead of the other files of their group. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_FIRST.findIndex((name) => spec.moduleId.endsWith(name));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    const group = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
    // Array.prototype.sort is stable: the other files keep vitest's order.
    return sorted.sort((a, b) => group(a) - group(b) || rank(a) - rank(b));
  }
}

const integration = {
  globalSetup: ['test/support/global-setup.ts'],
  setupFiles: ['test/support/setup-file.ts'],
  testTimeout: 30_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{gateway,worker,read-model,api,common}/**/*.unit.test.ts'],
          // Property tests run a few thousand cases: beside three integration files, a second.
          testTimeout: 30_000,
          maxWorkers: PARALLEL_FILES,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...integration,
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: TIMED,
          // A test process loads the product's modules once for every file it runs, not once per
          // file: loading them was 43 % of the test processes' CPU, on a suite bound by two cores'
          // CPU (these files: 720 s → 506 s). Files share no state but those modules: each brings
          // its own databases, Redis prefix, servers and processes, and closes them. The timed
          // files keep a process each: nothing another file left behind runs beside them.
          isolate: false,
          maxWorkers: PARALLEL_FILES,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...integration,
          name: 'timed',
          include: TIMED,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
