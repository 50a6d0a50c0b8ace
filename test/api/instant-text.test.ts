// The gateway's SQL reads turn PostgreSQL's timestamptz text into the API's ISO instant without
// a Date (api/scoped-sql.ts): the result must equal what Date#toISOString gives, for every form
// the server prints, in whatever time zone the session runs.
import pg from 'pg';
import { expect } from 'vitest';
import { isoInstant } from '#api/sql-values.js';
import { envTest as it } from '../support/fixtures.js';

// Read by it.each's tests, which get no fixtures of their own; ended before `env` is dropped.
let client: pg.Client;

it.beforeAll(async ({ env }) => {
  client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
});

it.afterAll(() => client?.end());

const INSTANTS = [
  '2026-11-25 09:30:00+00',
  '2026-11-25 09:30:00.5+00',
  '2026-11-25 09:30:00.57+00',
  '2026-11-25 09:30:00.123456+00',
  '2026-11-25 23:59:59.999999+00',
  '2024-02-29 00:00:00.001+00',
  '1970-01-01 00:00:00+00',
  '0099-06-01 12:00:00+00',
  '12026-01-01 00:00:00+00',
];

it.each(['UTC', 'Europe/Istanbul', 'Asia/Kolkata', 'America/St_Johns'])(
  'equals Date#toISOString for the text a session in %s prints',
  async (zone) => {
    await client.query(`SET TIME ZONE '${zone}'`);
    const { rows } = await client.query<{ text: string; epoch: string }>(
      `SELECT v::text AS text, (extract(epoch FROM v) * 1000)::numeric::text AS epoch
         FROM unnest($1::timestamptz[]) AS v`,
      [INSTANTS],
    );
    for (const { text, epoch } of rows) {
      // Milliseconds truncated, as PostgreSQL's microseconds reach a Date.
      const expected = new Date(Math.floor(Number(epoch))).toISOString();
      expect(isoInstant(text), text).toBe(expected);
    }
  },
);
