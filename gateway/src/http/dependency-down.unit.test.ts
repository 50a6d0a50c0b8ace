import { describe, expect, it } from 'vitest';
import { isDependencyDown } from './error-handler.js';

/** The shape Prisma 7 gives a failed query through the pg driver adapter. */
const prismaError = (sqlstate: string, message = 'x') => ({
  name: 'PrismaClientKnownRequestError',
  code: 'P2010',
  message: `Raw query failed. Code: \`${sqlstate}\`. Message: \`${message}\``,
  meta: {
    driverAdapterError: {
      name: 'DriverAdapterError',
      cause: { originalCode: sqlstate, kind: 'postgres', code: sqlstate, message },
    },
  },
});

describe('isDependencyDown', () => {
  it.each([
    ['57P01', 'admin shutdown'],
    ['57P03', 'cannot connect now (starting up)'],
    ['08006', 'connection failure'],
    ['53300', 'too many connections'],
    ['57014', 'statement timeout'],
  ])('when PostgreSQL answers %s (%s), then the dependency counts as down', (sqlstate) => {
    expect(isDependencyDown(prismaError(sqlstate))).toBe(true);
  });

  it.each([
    ['23505', 'unique violation'],
    ['22P02', 'invalid text representation'],
  ])('when PostgreSQL answers %s (%s), then it is a bug, not an outage', (sqlstate) => {
    expect(isDependencyDown(prismaError(sqlstate))).toBe(false);
  });

  it('when pg gives up on a frozen server, then the dependency counts as down', () => {
    expect(isDependencyDown(new Error('Query read timeout'))).toBe(true);
  });

  it('when the OAuth library wraps the failure in its server_error, then it is found inside', () => {
    const wrapped = { name: 'server_error', message: 'x', inner: prismaError('57P01') };
    expect(isDependencyDown(wrapped)).toBe(true);
  });
});
