// What usage counting stores, shared by the gateway (which counts and flushes to Redis), the
// worker (which merges Redis into PostgreSQL) and the reports: the latency buckets, the Redis keys
// and how one counter is named in a Redis hash (docs/decisions/0015-usage-reports.md).

/**
 * Upper bounds in ms of the latency buckets: OpenTelemetry's default explicit bucket boundaries,
 * so the figures read the same as any OpenTelemetry histogram. A last bucket holds the rest.
 */
export const LATENCY_BOUNDS_MS = [
  0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000,
] as const;
export const LATENCY_BUCKETS = LATENCY_BOUNDS_MS.length + 1;

/** The bucket of a latency: the first whose bound is not below it (bounds are inclusive). */
export function latencyBucketOf(ms: number): number {
  let i = 0;
  while (i < LATENCY_BOUNDS_MS.length && ms > LATENCY_BOUNDS_MS[i]!) i++;
  return i;
}

export interface LatencyPercentiles {
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/**
 * The latency under which a share `q` of the requests were answered, from per-bucket counts: as
 * Prometheus's histogram_quantile, linear within the bucket the rank falls in, the last bound for
 * the open bucket; null for no requests. Exact to within its bucket.
 */
export function latencyPercentile(counts: readonly number[], q: number): number | null {
  const total = counts.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < counts.length; i++) {
    const n = counts[i] ?? 0;
    if (n > 0 && below + n >= rank) {
      if (i >= LATENCY_BOUNDS_MS.length) return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]!;
      const upper = LATENCY_BOUNDS_MS[i]!;
      const lower = i === 0 ? 0 : LATENCY_BOUNDS_MS[i - 1]!;
      return Math.round((lower + ((upper - lower) * (rank - below)) / n) * 10) / 10;
    }
    below += n;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]!;
}

/** The read model's column of each bucket, in order (usage_hours). */
export const LATENCY_COLUMNS: readonly string[] = [
  ...LATENCY_BOUNDS_MS.map((bound) => `ms_le_${bound}`),
  `ms_over_${LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]}`,
];

/**
 * The client of requests no client authenticated (no or a bad token, failed credentials, an
 * unknown path): operators see them, partners never do. Client ids start at 1.
 */
export const NO_CLIENT = 0;

/** The operation of a request that matched no route: its method and this word. */
export const UNMATCHED = 'unmatched';

/**
 * Every usage key shares one hash tag, so the flush and the merge each run as one script on Redis
 * Cluster too. A flush is one call a second per gateway: one slot carries it easily.
 */
const base = (prefix: string) => `${prefix}:{usage}`;
export const usageKeys = (prefix: string) => ({
  /** The hash every gateway adds its counts to. */
  counts: `${base(prefix)}:counts`,
  /** Names of batches: the counts hash renamed by a merge, waiting to be written. */
  batches: `${base(prefix)}:batches`,
  batch: (id: string) => `${base(prefix)}:batch:${id}`,
  /** Set by a flush that was applied, so the same flush sent again adds nothing. */
  flushed: (id: string) => `${base(prefix)}:flushed:${id}`,
});

/** One cell of the usage table: an hour, a client, an operation and a status. */
export interface UsageCell {
  /** The hour's start, ms since the epoch. */
  hour: number;
  clientId: number;
  /** "GET /api/v1/members/{id}", as the OpenAPI document writes it. */
  operation: string;
  status: number;
  requests: number;
  bytesOut: number;
  /** Requests per latency bucket (LATENCY_BOUNDS_MS). */
  latency: number[];
}

/** The counters of a cell, as named in a Redis hash field. */
const REQUESTS = 'n';
const BYTES = 'b';

/**
 * A hash field: "<hour ms>|<client>|<status>|<counter>|<operation>", the operation last so any
 * character it holds is kept.
 */
export function cellFields(cell: UsageCell): [string, number][] {
  const head = `${cell.hour}|${cell.clientId}|${cell.status}|`;
  const tail = `|${cell.operation}`;
  const fields: [string, number][] = [[`${head}${REQUESTS}${tail}`, cell.requests]];
  if (cell.bytesOut > 0) fields.push([`${head}${BYTES}${tail}`, cell.bytesOut]);
  cell.latency.forEach((count, bucket) => {
    if (count > 0) fields.push([`${head}${bucket}${tail}`, count]);
  });
  return fields;
}

/** A hash's fields back into cells; fields that are not ours are skipped. */
export function cellsOf(hash: Record<string, string>): UsageCell[] {
  const cells = new Map<string, UsageCell>();
  for (const [field, value] of Object.entries(hash)) {
    const match = /^(\d+)\|(\d+)\|(\d+)\|(n|b|\d+)\|(.*)$/s.exec(field);
    if (!match) continue;
    const [, hour = '', client = '', status = '', counter = '', operation = ''] = match;
    const key = `${hour}|${client}|${status}|${operation}`;
    let cell = cells.get(key);
    if (!cell) {
      cell = {
        hour: Number(hour),
        clientId: Number(client),
        operation,
        status: Number(status),
        requests: 0,
        bytesOut: 0,
        latency: new Array<number>(LATENCY_BUCKETS).fill(0),
      };
      cells.set(key, cell);
    }
    const amount = Number(value);
    if (counter === REQUESTS) cell.requests += amount;
    else if (counter === BYTES) cell.bytesOut += amount;
    else if (Number(counter) < LATENCY_BUCKETS) cell.latency[Number(counter)]! += amount;
  }
  return [...cells.values()];
}
