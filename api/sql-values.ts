// How a statement's rows become API objects, for the SQL reads (api/scoped-sql.ts): the type
// parsers giving the API's values, and each resource's select list with a row mapper compiled
// once per resource.
import pg from 'pg';
import type { z } from 'zod';
import { raw, type Sql } from '#read-model/sql.js';

/**
 * A resource as a statement selects it (api/resource.ts): its fields, in order, are the read
 * model's columns, and a row of them is the API object its schema describes (the type parsers
 * below give the API's values).
 */
export interface SelectedResource<Item> {
  select: Record<string, true>;
  schema: z.ZodType<Item>;
}

// Values as the API wants them, as Prisma's mapper would give them to Resource.toApi: numeric as
// a number, a calendar day as its YYYY-MM-DD text (never a local-midnight Date), bigint count as
// a number, an instant as its ISO text (what Date#toISOString gives: milliseconds, `Z`).
const NUMERIC = 1700;
const DATE = 1082;
const INT8 = 20;
const TIMESTAMPTZ = 1184;
const asNumber = (value: string) => Number(value);
const asText = (value: string) => value;
const parseTimestamp = pg.types.getTypeParser(TIMESTAMPTZ) as (value: string) => Date;

/**
 * PostgreSQL's UTC text (`2026-11-25 09:30:00.5+00`, a session in UTC) rewritten as the ISO
 * instant without building a Date, the larger part of a change-feed page's cost otherwise
 * (docs/decisions/0011-change-feed.md). Any other form (another offset, five-digit or BC years,
 * infinity) goes the Date way.
 */
export function isoInstant(value: string): string {
  if (value.length < 22 || value[10] !== ' ' || value[19] === ':' || !value.endsWith('+00')) {
    return parseTimestamp(value).toISOString();
  }
  const fraction = value.slice(20, -3); // after the '.', if any: '' or up to six digits
  const millis = value[19] === '.' ? `${fraction}00`.slice(0, 3) : '000';
  return `${value.slice(0, 10)}T${value.slice(11, 19)}.${millis}Z`;
}

export const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown => {
    if (oid === NUMERIC || oid === INT8) return asNumber;
    if (oid === DATE) return asText;
    if (oid === TIMESTAMPTZ) return isoInstant;
    return pg.types.getTypeParser(oid, format) as unknown;
  }) as pg.CustomTypesConfig['getTypeParser'],
};

interface Selection {
  /** The select list, quoted once, not on every request. */
  list: Sql;
  count: number;
  /** The API object of a row's values, in the select list's order. */
  objectOf: (values: unknown[]) => unknown;
}

const COLUMN_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * A resource's select list, and a function building its API object from a row's values as one
 * object literal, compiled once per resource: V8 then makes each row in one step with its final
 * shape (the figures: docs/decisions/0014-kept-counts.md). The names are the resources' own
 * constants, checked here before they become code.
 */
function compileSelection(resource: SelectedResource<unknown>): Selection {
  const columns = Object.keys(resource.select);
  for (const column of columns) {
    // `__proto__` in a literal would set the prototype, not a field.
    if (!COLUMN_NAME.test(column) || column === '__proto__') {
      throw new Error(`not a column name: ${column}`);
    }
  }
  const literal = columns.map((column, i) => `${column}: values[${i}]`).join(', ');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- see above: fixed names only
  const objectOf = new Function('values', `return { ${literal} };`) as Selection['objectOf'];
  const list = columns.map((column) => pg.escapeIdentifier(column)).join(', ');
  return { list: raw(list), count: columns.length, objectOf };
}

const selections = new WeakMap<SelectedResource<unknown>, Selection>();
export function selectionOf(resource: SelectedResource<unknown>): Selection {
  let selection = selections.get(resource);
  if (selection === undefined) {
    selection = compileSelection(resource);
    selections.set(resource, selection);
  }
  return selection;
}
