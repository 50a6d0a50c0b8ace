import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * Files whose assertions time something on the machine (a latency against its value alone, a
 * deadline of a second, a number of rounds within a time), named `*.timed.test.ts` beside their
 * feature's other files, run one at a time after the rest, so
 * another file's load never decides them. They hold those tests alone: the untimed tests of the
 * same feature, and those whose bound is many times what they take, are in files of their own
 * beside them (console-browser-pages, clients-rotate-secret, auth-refresh-chains, portal-security,
 * resilience-shutdown), since this group's every second adds to the run's. Also here:
 * read-model-order-held and webhooks-dispatch-claims, which hold a transaction open for seconds,
 * and with it every other file's change feed on the shared server. Every other file brings its
 * own databases and Redis prefix, and runs beside others.
 */
const TIMED = ['test/**/*.timed.test.ts'];
/** Files at once in the first group: most of a file's time is spent waiting on its servers. */
const PARALLEL_FILES = 3;

/**
 * The first group's longest files (25 s to a minute each beside other files: outages, back-off
 * floors, overlaps, backfills, browsers), started first, longest first, so that none of them
 * starts late and ends the group alone. Vitest orders by the last run's durations where it has
 * them; a clean clone has none, and would order by file size. Roughly, from a whole run's JSON
 * report (`--reporter=json`); the order is what matters.
 */
const LONGEST_FIRST = [
  'test/webhooks/webhooks-retries.test.ts',
  'test/sync/sync-crash.test.ts',
  'test/auth/clients-cli.test.ts',
  'test/resilience/resilience-postgres.test.ts',
  'test/sync/read-replicas.test.ts',
  'test/pages/console-browser-pages.test.ts',
  'test/webhooks/webhooks-sweep.test.ts',
  'test/sync/workers-scale.test.ts',
  'test/sync/queue-streams.test.ts',
  'test/pages/console-oidc.test.ts',
  'test/webhooks/webhooks.test.ts',
  'test/api/fuzz.test.ts',
  'test/resilience/resilience-worker.test.ts',
  'test/auth/clients-rotate-secret.test.ts',
  'test/webhooks/webhooks-fairness.test.ts',
  'test/webhooks/webhooks-rights.test.ts',
  'test/sync/sync-randomized.test.ts',
  'test/resilience/resilience-shutdown.test.ts',
  'test/pages/console-security.test.ts',
  'test/resilience/resilience-mariadb.test.ts',
  'test/operations/traces.test.ts',
  'test/operations/operator-interface.test.ts',
  'test/webhooks/webhooks-faults.test.ts',
  'test/webhooks/webhooks-operator.test.ts',
  'test/pages/portal-browser.test.ts',
  'test/sync/sync-binlog-operations.test.ts',
  'test/members/data-classes.test.ts',
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
          // files share one process too, one file at a time (setup-file.ts ends what a file left
          // running, so nothing of another file runs beside them): 176 s, from 198 s a process each.
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
          isolate: false,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
