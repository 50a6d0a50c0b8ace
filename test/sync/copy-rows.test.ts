// A first load's rows go to PostgreSQL in COPY's binary form (read-model/copy-rows.ts): they
// must be stored exactly as the upsert path, which sends them as JSON text, stores them.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CopyBuffer, copyIn, copyStatement } from '#read-model/copy-rows.js';
import { PG_TYPES } from '#read-model/table-definition.js';
import type { ReadModelRow, SyncTable } from '#read-model/table-definition.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';

let env: TestEnvironment;
let pool: pg.Pool;

beforeAll(async () => {
  env = await createTestEnvironment();
  // UTC, so that instants read back compare as text.
  pool = new pg.Pool({ connectionString: env.databaseUrl, max: 1, options: '-c TimeZone=UTC' });
});

afterAll(async () => {
  await pool?.end();
  await env?.destroy();
});

const table = {
  name: 'copy_probe',
  columns: {
    id: 'int',
    big: 'bigint',
    name: 'text',
    active: 'bool',
    amount: 'decimal',
    day: 'date',
    at: 'instant',
  },
} satisfies Pick<SyncTable, 'name' | 'columns'>;

const rows: ReadModelRow[] = [
  {
    id: 1,
    big: 1,
    name: 'plain',
    active: true,
    amount: '12.50',
    day: '2026-11-21',
    at: '2026-11-21T07:00:00.000Z',
  },
  {
    id: -2147483648,
    big: -1,
    name: 'Tab\there\r\nnew \\N line',
    active: false,
    amount: '-0.50',
    day: '2000-02-29',
    at: '1970-01-01T00:00:00.000Z',
  },
  {
    id: 2147483647,
    big: 2 ** 40 + 7,
    name: 'Şükrü Işık İğdır 😀',
    active: true,
    amount: '0.00',
    day: '1969-12-31',
    at: '1899-12-31T21:00:00.000Z',
  },
  {
    id: 4,
    big: -(2 ** 40) - 3,
    name: '',
    active: false,
    amount: '9999999999.99',
    day: '0001-01-01',
    at: '9999-12-31T20:59:59.000Z',
  },
  {
    id: 5,
    big: Number.MAX_SAFE_INTEGER,
    name: 'x',
    active: true,
    amount: '-1234567.8',
    day: '9999-12-31',
    at: '2024-06-01T12:34:56.789Z',
  },
  {
    id: 6,
    big: 0,
    name: 'y',
    active: false,
    amount: '0.001',
    day: '1900-03-01',
    at: '0001-01-01T00:00:00.000Z',
  },
  { id: 7, big: null, name: null, active: null, amount: null, day: null, at: null },
  {
    id: 8,
    big: 10000,
    name: 'z',
    active: true,
    amount: '10000.0001',
    day: '2016-12-31',
    at: '2016-12-31T23:59:59.999Z',
  },
  {
    id: 9,
    big: 9,
    name: 'w',
    active: true,
    amount: '-0',
    day: '2024-02-29',
    at: '2024-02-29T00:00:00.499Z',
  },
  ...['12345.6', '0.1', '100.00', '10000', '-99999.99', '1.23456', '0000.50', '-0.004', '7'].map(
    (amount, i) => ({ id: 100 + i, amount, name: ['€ ﬁ ✓', 'a\u0000'.slice(0, 1), 'İ'][i % 3]! }),
  ),
];

async function stored(tableName: string) {
  const { rows: found } = await pool.query<Record<string, unknown>>(
    `SELECT id, big::text, name, active, amount::text, day::text, at::text FROM ${tableName} ORDER BY id`,
  );
  return found;
}

describe('rows sent in COPY binary form', () => {
  it('when every column type is copied, then each value is stored as the upsert path stores it', async () => {
    const columns = `id integer PRIMARY KEY, big bigint, name text, active boolean,
      amount numeric(12, 2), day date, at timestamptz(0)`;
    await pool.query(`CREATE TABLE copy_probe (${columns}); CREATE TABLE json_probe (${columns})`);
    const copy = new CopyBuffer(table);
    for (const row of rows) copy.append(row);
    expect(copy.refused).toBeNull();
    const client = await pool.connect();
    try {
      expect(
        await copyIn(client, copyStatement(table, { withReadOrder: false }), copy.bytes()),
      ).toBe(rows.length);
    } finally {
      client.release();
    }
    await pool.query(
      `INSERT INTO json_probe SELECT * FROM json_populate_recordset(NULL::json_probe, $1::json)`,
      [JSON.stringify(rows)],
    );
    const copied = await stored('copy_probe');
    expect(copied).toEqual(await stored('json_probe'));
    // Spot checks that the comparison compares something.
    expect(copied.find((r) => r.id === 4)).toMatchObject({
      big: String(-(2 ** 40) - 3),
      amount: '9999999999.99',
      day: '0001-01-01',
      at: '9999-12-31 20:59:59+00',
    });
    expect(copied.find((r) => r.id === 6)).toMatchObject({
      amount: '0.00',
      at: '0001-01-01 00:00:00+00',
    });
    expect(copied.find((r) => r.id === 8)).toMatchObject({ at: '2017-01-01 00:00:00+00' });
  });

  it('when a day or a time does not exist, then the encoder refuses it as PostgreSQL refuses its text', async () => {
    await pool.query(`CREATE TABLE refusal_probe (day date, at timestamptz(0))`);
    const impossible: Record<string, string>[] = [
      { day: '2021-02-30' },
      { day: '2021-13-01' },
      { day: '0000-12-31' },
      { at: '2021-01-01T25:00:00.000Z' },
      { at: '2021-01-01T10:60:00.000Z' },
      { at: '0000-12-31T21:00:00.000Z' },
    ];
    for (const value of impossible) {
      const copy = new CopyBuffer(table);
      copy.append({ ...rows[0]!, ...value });
      expect([value, copy.refused]).toEqual([value, expect.stringMatching(/^not an? \w+ text/)]);
      await expect(
        pool.query(
          `INSERT INTO refusal_probe SELECT * FROM json_populate_record(NULL::refusal_probe, $1)`,
          [JSON.stringify(value)],
        ),
      ).rejects.toThrow(/out of range/);
    }
  });

  it('when a value is out of its column range, then PostgreSQL refuses the COPY', async () => {
    const copy = new CopyBuffer(table);
    copy.append({ ...rows[0]!, id: 10, amount: '12345678901.00' });
    const client = await pool.connect();
    try {
      await expect(
        copyIn(client, copyStatement(table, { withReadOrder: false }), copy.bytes()),
      ).rejects.toThrow(/numeric field overflow/);
    } finally {
      client.release(true);
    }
  });

  it('then every synced column has the PostgreSQL type its binary form is written for', async () => {
    const { rows: found } = await pool.query<{
      table_name: string;
      column_name: string;
      type: string;
    }>(
      `SELECT table_name, column_name, format_type(atttypid, NULL) AS type
       FROM information_schema.columns c
       JOIN pg_attribute a ON a.attrelid = c.table_name::regclass AND a.attname = c.column_name
       WHERE c.table_schema = 'public'`,
    );
    const typeOf = new Map(found.map((c) => [`${c.table_name}.${c.column_name}`, c.type]));
    const mismatches = SYNC_TABLES.flatMap((synced) =>
      Object.entries(synced.columns)
        .map(([column, type]) => [`${synced.name}.${column}`, PG_TYPES[type]] as const)
        .filter(([column, expected]) => {
          const actual = typeOf.get(column);
          return (
            actual !== expected &&
            !(expected === 'timestamptz' && actual === 'timestamp with time zone')
          );
        }),
    );
    expect(mismatches).toEqual([]);
  });
});
