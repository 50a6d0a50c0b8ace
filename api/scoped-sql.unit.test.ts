import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { join } from '../read-model/sql.js';
import { createScopedSql, equalities } from './scoped-sql.js';

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
