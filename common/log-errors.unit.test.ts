import { describe, expect, it } from 'vitest';
import { errorForLog, scrubbedMessage } from './log-errors.js';

describe('scrubbedMessage', () => {
  it.each([
    [
      "(conn:5, no: 1062, SQLState: 23000) Duplicate entry '05321234567' for key 'uq_phone'\nsql: INSERT INTO members (phone) VALUES (?) - parameters:['05321234567']",
      "(conn:5, no: 1062, SQLState: 23000) Duplicate entry '…' for key 'uq_phone'",
    ],
    [
      "Duplicate entry 'O'Brien' for key 'members.uq_name'",
      "Duplicate entry '…' for key 'members.uq_name'",
    ],
    [
      "Incorrect integer value: '12a' for column `db`.`members`.`branch_id` at row 1",
      "Incorrect integer value: '…' for column `db`.`members`.`branch_id` at row 1",
    ],
    ["Truncated incorrect DOUBLE value: 'Ay'şe'", "Truncated incorrect DOUBLE value: '…'"],
    [
      'invalid input syntax for type integer: "12345678901"',
      'invalid input syntax for type integer: "…"',
    ],
    [
      'relation "member_write_audit" does not exist',
      'relation "member_write_audit" does not exist',
    ],
    ["Data too long for column 'address' at row 1", "Data too long for column 'address' at row 1"],
  ])('when a driver says %j, then the log says %j', (message, logged) => {
    expect(scrubbedMessage(message)).toBe(logged);
  });
});

describe('errorForLog', () => {
  it('when an error carries a statement, its parameters and a detail, then only its kind, words and frames are kept', () => {
    const error = Object.assign(
      new Error("Duplicate entry '12345678901' for key 'uq_tc'\nsql: SELECT ? - parameters:['x']"),
      {
        errno: 1062,
        code: 'ER_DUP_ENTRY',
        sql: "SELECT ? - parameters:['12345678901']",
        sqlMessage: "Duplicate entry '12345678901' for key 'uq_tc'",
        detail: 'Key (tc_no)=(12345678901) already exists.',
      },
    );
    const logged = errorForLog(new Error('write failed', { cause: error }));
    expect(JSON.stringify(logged)).not.toContain('12345678901');
    expect(logged).toMatchObject({
      type: 'Error',
      message: 'write failed',
      cause: {
        message: "Duplicate entry '…' for key 'uq_tc'",
        errno: 1062,
        code: 'ER_DUP_ENTRY',
        sql: 'SELECT ?',
        stack: expect.stringMatching(/^\s+at /),
      },
    });
  });

  it("when Prisma wraps a driver's error, then the chain goes through it", () => {
    const prisma = Object.assign(new Error('Raw query failed.'), {
      code: 'P2010',
      meta: {
        driverAdapterError: Object.assign(new Error('driver'), {
          cause: { kind: 'UniqueConstraintViolation', originalCode: '23505', originalMessage: 'x' },
        }),
      },
    });
    expect(errorForLog(prisma)).toMatchObject({
      code: 'P2010',
      cause: {
        message: 'driver',
        cause: { kind: 'UniqueConstraintViolation', originalCode: '23505' },
      },
    });
  });
});
