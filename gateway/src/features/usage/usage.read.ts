// The usage reports' one query, for GET /usage (one client), `npm run usage` (any client) and the
// console and portal pages: usage_hours summed by period (hour, UTC day, or the whole range) and
// by operation, status or client, with the latency percentiles read off the summed buckets. A
// range of whole UTC days without hourly rows reads usage_days instead, which triggers keep equal
// to usage_hours summed by day (docs/decisions/0015-usage-reports.md): the same answer from a
// 24th of the rows.
import {
  LATENCY_COLUMNS,
  latencyPercentile,
  type LatencyPercentiles,
} from '#api/usage/usage-cells.js';
import { empty, join, pgRows, raw, sql, type PgQueryable } from '#read-model/sql.js';

const GROUP_COLUMNS = { operation: 'operation', status: 'status', client: 'client_id' } as const;
export type UsageGroup = keyof typeof GROUP_COLUMNS;

export interface UsageQuery {
  /** One client's usage; every client's when absent (operators). */
  clientId?: number;
  /** Hours whose start is in [from, to). */
  from: Date;
  to: Date;
  /** A row per hour or UTC day; null: one row for the whole range. */
  granularity: 'hour' | 'day' | null;
  groupBy: UsageGroup | null;
  /** More rows than this are not read: `more` says so. */
  maxRows: number;
}

export interface UsageFigures {
  requests: number;
  /** 4xx answers (429 and 499, a client that hung up, included). */
  client_errors: number;
  server_errors: number;
  rate_limited: number;
  bytes_out: number;
  latency_ms: LatencyPercentiles;
}

export interface UsageRow extends UsageFigures {
  /** The period's start; null when the row covers the whole range. */
  period_start: string | null;
  /** The group's value (operation, status or client id); null without a group. */
  group: string | number | null;
}

export const figuresOf = (row: UsageRow): UsageFigures => ({
  requests: row.requests,
  client_errors: row.client_errors,
  server_errors: row.server_errors,
  rate_limited: row.rate_limited,
  bytes_out: row.bytes_out,
  latency_ms: row.latency_ms,
});

interface Summed {
  period_start: Date | null;
  grp: string | number | null;
  requests: number;
  client_errors: number;
  server_errors: number;
  rate_limited: number;
  bytes_out: number;
  latency: number[];
}

const DAY_MS = 86_400_000;
const isDayStart = (at: Date) => at.getTime() % DAY_MS === 0;

/** usage_days when the range is whole UTC days and no row is an hour; usage_hours otherwise. */
function source(query: UsageQuery) {
  const byDay = query.granularity !== 'hour' && isDayStart(query.from) && isDayStart(query.to);
  return byDay
    ? { table: raw('usage_days'), at: raw('day') }
    : { table: raw('usage_hours'), at: raw('hour') };
}

function statement(query: UsageQuery) {
  const { table, at } = source(query);
  const period =
    query.granularity === null
      ? sql`NULL::timestamptz`
      : sql`date_trunc(${query.granularity}, ${at}, 'UTC')`;
  const group = raw(query.groupBy === null ? 'NULL' : GROUP_COLUMNS[query.groupBy]);
  const client = query.clientId === undefined ? empty : sql`AND client_id = ${query.clientId}`;
  const buckets = join(
    LATENCY_COLUMNS.map((column) => raw(`sum(${column})`)),
    ', ',
  );
  // float8: exact up to 2^53, and pg hands it over as a number.
  return sql`
    SELECT ${period} AS period_start, ${group} AS grp,
           sum(requests)::float8 AS requests,
           coalesce(sum(requests) FILTER (WHERE status BETWEEN 400 AND 499), 0)::float8
             AS client_errors,
           coalesce(sum(requests) FILTER (WHERE status >= 500), 0)::float8 AS server_errors,
           coalesce(sum(requests) FILTER (WHERE status = 429), 0)::float8 AS rate_limited,
           sum(bytes_out)::float8 AS bytes_out,
           ARRAY[${buckets}]::float8[] AS latency
      FROM ${table}
     WHERE ${at} >= ${query.from} AND ${at} < ${query.to} ${client}
     GROUP BY 1, 2
     ORDER BY 1, 2
     LIMIT ${query.maxRows + 1}`;
}

/** `pool`: the read model's (readModelPool), on the primary, where the worker merges. */
export async function readUsage(
  pool: PgQueryable,
  query: UsageQuery,
): Promise<{ rows: UsageRow[]; more: boolean }> {
  const summed = await pgRows<Summed>(pool, statement(query));
  const rows = summed.slice(0, query.maxRows).map((row) => ({
    period_start: row.period_start?.toISOString() ?? null,
    group: row.grp,
    requests: row.requests,
    client_errors: row.client_errors,
    server_errors: row.server_errors,
    rate_limited: row.rate_limited,
    bytes_out: row.bytes_out,
    latency_ms: {
      p50: latencyPercentile(row.latency, 0.5),
      p95: latencyPercentile(row.latency, 0.95),
      p99: latencyPercentile(row.latency, 0.99),
    },
  }));
  return { rows, more: summed.length > query.maxRows };
}

const UNIT_MS = { hour: 3_600_000, day: 86_400_000 } as const;

/**
 * The whole hours (UTC days) around [from, to): `to` defaults to `now`, `from` to 24 hours before
 * `to`; a problem with the range names its field instead.
 */
export function usageRange(
  asked: { from?: string | undefined; to?: string | undefined },
  unit: keyof typeof UNIT_MS,
  maxDays: number,
  now = Date.now(),
): { from: Date; to: Date } | { field: 'from' | 'to'; message: string } {
  const to = asked.to === undefined ? now : Date.parse(asked.to);
  const from = asked.from === undefined ? to - UNIT_MS.day : Date.parse(asked.from);
  if (!(from < to)) return { field: 'to', message: 'to, from değerinden sonra olmalıdır.' };
  if (to - from > maxDays * UNIT_MS.day) {
    return { field: 'from', message: `Aralık en fazla ${maxDays} gün olabilir.` };
  }
  const size = UNIT_MS[unit];
  return {
    from: new Date(Math.floor(from / size) * size),
    to: new Date(Math.ceil(to / size) * size),
  };
}
