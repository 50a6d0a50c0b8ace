import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { join } from '#read-model/sql.js';
import { createScopedSql, equalities, filtered, pageStatement } from './scoped-sql.js';

// Nothing listens there: a statement that got as far as the pool would fail to connect instead.
const pool = new pg.Pool({ connectionString: 'postgresql://nobody@127.0.0.1:1/none' });
const sql = createScopedSql(pool)({ kind: 'all-branches' });
afterAll(() => pool.end());

const resourceWith = (key: string) => ({
  select: { id: true, [key]: true } as Record<string, true>,
  schema: z.looseObject({ id: z.int() }),
});

describe('scoped SQL selections', () => {
  it.each([
    'name; DROP TABLE members',
    'a: 1 }; process.exit(1); ({ b',
    'Name',
    '1a',
    'full name',
    '__proto__',
  ])('when a resource names the column %j, then nothing is compiled or run', async (key) => {
    const query = {
      table: 'members' as const,
      where: [],
      resource: resourceWith(key),
    };
    await expect(sql.rows(query)).rejects.toThrow(`not a column name: ${key}`);
  });
});

describe('equalities', () => {
  it('when a filter is false, 0 or empty text, then it is a condition; only an absent one is not', () => {
    const where = equalities({ is_active: false, stock: 0, name: '', branch_id: undefined });
    const statement = join(where, ' AND ');
    expect(statement.text).toBe('is_active = $1 AND stock = $2 AND name = $3');
    expect(statement.values).toEqual([false, 0, '']);
  });
});

describe('the branch condition', () => {
  const branch = { kind: 'branch', branchId: 7 } as const;
  const members = { table: 'members' as const, where: equalities({ gender: 'K' }) };

  it("when the caller is bound to a branch, then a query's FROM carries its branch last", () => {
    const from = filtered(branch, members);
    expect(from.text).toBe('FROM "members" WHERE (gender = $1) AND ("branch_id" = $2)');
    expect(from.values).toEqual(['K', 7]);
  });

  it('when the caller sees every branch, then no branch condition is added', () => {
    expect(filtered({ kind: 'all-branches' }, members).text).toBe(
      'FROM "members" WHERE (gender = $1)',
    );
  });

  it('when a page is built for a bound caller, then its rows and its total both carry the branch', () => {
    const statement = pageStatement(branch, {
      ...members,
      resource: resourceWith('full_name'),
      orderBy: 'id',
      window: { skip: 50, take: 25 },
    });
    expect(statement.text.match(/"branch_id" = \$\d+/g)).toHaveLength(2);
    expect(statement.values.filter((v) => v === 7)).toHaveLength(2);
  });
});
