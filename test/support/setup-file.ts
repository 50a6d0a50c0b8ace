// Runs in each test file's context before it: hands the run's shared pieces to the support
// modules that use them, and after the file's own hooks ends what it left running (a test
// process runs many files: vitest.config.ts).
import { afterAll, expect, inject } from 'vitest';
import { killLeftoverProcesses } from './processes.js';
import { SpareMariaDb } from './spare-mariadb.js';
import { killLeftoverServers } from './spare-processes.js';

SpareMariaDb.template = inject('services').mariadbTemplate;

afterAll(() => {
  const processes = killLeftoverProcesses();
  const servers = killLeftoverServers();
  if (processes + servers > 0) {
    console.warn(
      `${expect.getState().testPath ?? 'a test file'} left ${processes} gateway or worker ` +
        `processes and ${servers} spare servers running: killed`,
    );
  }
});
