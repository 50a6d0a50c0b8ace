// The run-wide log audit (support/run-logs.ts), checked on a run of its own: it must fail a log
// that holds a handed-out credential or something shaped like one, and pass a clean one.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { auditRunLogs, noteCredentials, runLogger } from '../support/run-logs.js';

const runOf = () => `audit-${randomBytes(4).toString('hex')}`;

describe('the run-wide log audit', () => {
  it('when the log holds only ordinary lines, then it finds nothing', () => {
    const run = runOf();
    noteCredentials(run, 'a-secret-handed-out-1234');
    runLogger(run, 'probe').info({ request_id: 'r1', status: 200 }, 'request');
    expect(auditRunLogs(run)).toEqual([]);
  });

  it('when a handed-out token is logged, then it names the leak', () => {
    const run = runOf();
    noteCredentials(run, 'tok_abcdefghijklmnopqrstuvwxyz');
    runLogger(run, 'probe').info({ note: 'tok_abcdefghijklmnopqrstuvwxyz' }, 'oops');
    expect(auditRunLogs(run)).toEqual([expect.stringContaining('1 handed-out secret')]);
  });

  it('when a password hash or a bearer header is logged, then it names its shape', () => {
    const run = runOf();
    const logger = runLogger(run, 'probe');
    logger.info({ hash: '$2y$10$abcdefghijklmnopqrstuv' }, 'staff row');
    logger.info({ header: 'Bearer abcdefghijklmnopqrstuvwxyz' }, 'raw header');
    expect(auditRunLogs(run)).toHaveLength(2);
  });
});
