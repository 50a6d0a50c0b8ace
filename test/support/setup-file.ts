// Runs in each test file's context before it: hands the run's shared pieces to the support
// modules that use them.
import { inject } from 'vitest';
import { SpareMariaDb } from './spare-mariadb.js';

SpareMariaDb.template = inject('services').mariadbTemplate;
