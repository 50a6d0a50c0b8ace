// Usage counting off the hot path (docs/decisions/0015-usage-reports.md): a request costs a map
// lookup and a few increments in this process's memory; every USAGE_FLUSH_INTERVAL_MS the counts
// are added to one Redis hash shared by every gateway, in one script call, and the worker merges
// that hash into PostgreSQL. A process killed at once loses only what it counted since its last
// flush.
import { randomUUID } from 'node:crypto';
import {
  LATENCY_BUCKETS,
  latencyBucketOf,
  cellFields,
  UNMATCHED,
  usageKeys,
  type UsageCell,
} from '#api/usage/usage-cells.js';
import type { ThrottledLog } from '#common/log-throttle.js';
import type { RedisClient } from '#common/redis.js';

const HOUR_MS = 3_600_000;
/** Fields sent by one script call at most; a larger flush is several calls. */
const FIELDS_PER_CALL = 2000;
/**
 * How long Redis remembers an applied flush: one sent again within it adds nothing. A flush is
 * sent again at the next interval, a second later, once Redis answers; five minutes covers that
 * with room, and keeps about 300 marks per gateway (an hour kept 3,600, a steady rise in Redis
 * for the first hour of every run).
 */
const FLUSHED_MARK_SECONDS = 300;

// KEYS: the counts hash, this flush's mark. ARGV: the mark's lifetime, then field, increment
// pairs. A flush whose answer was lost is sent again under the same mark, so it is added once.
const FLUSH_SCRIPT = `
if not redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[1]) then return 0 end
for i = 2, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
`;

interface WithFlushCommand {
  gatewayUsageFlush(...args: (string | number)[]): Promise<number>;
}

interface LiveCell {
  clientId: number;
  method: string;
  /** The route template as Express has it (":id"), or null for no route. */
  route: string | null;
  status: number;
  requests: number;
  bytesOut: number;
  latency: number[];
}

export interface UsageCounter {
  /**
   * Counts one answered request under its client (NO_CLIENT when none authenticated). Synchronous
   * and cheap: it runs for every request.
   */
  count(
    clientId: number,
    method: string,
    route: string | null,
    status: number,
    ms: number,
    bytesOut: number,
  ): void;
  /** Adds what was counted to Redis; kept and sent again next time when Redis does not answer. */
  flush(): Promise<void>;
  /** Stops the timer and flushes what is left (a stopping gateway, after its last answer). */
  close(): Promise<void>;
}

/** "GET /api/v1/members/{id}": the operation as the OpenAPI document names it. */
export const operationOf = (method: string, route: string | null) =>
  `${method} ${route === null ? UNMATCHED : route.replace(/:(\w+)/g, '{$1}')}`;

export function createUsageCounter(options: {
  /** USAGE_COUNTING: false gives the counter that counts nothing, with no timer. */
  counting: boolean;
  redis: RedisClient;
  prefix: string;
  flushIntervalMs: number;
  log: ThrottledLog;
}): UsageCounter {
  if (!options.counting) return NO_USAGE_COUNTER;
  const { log } = options;
  const keys = usageKeys(options.prefix);
  const command = withFlushCommand(options.redis);
  const counts: LiveCounts = { hour: 0, hourEnd: 0, cells: new Map(), earlier: [] };
  /** Calls Redis has not acknowledged: sent again, each under its own mark, before new counts. */
  let unacknowledged: FlushCall[] = [];
  let flushing: Promise<void> | null = null;

  async function send(): Promise<void> {
    // While Redis owes an answer, new counts stay in memory: what is kept is bounded by the
    // cells counted, not by the length of the outage.
    if (unacknowledged.length === 0) unacknowledged = flushCallsOf(takeHours(counts));
    while (unacknowledged.length > 0) {
      const call = unacknowledged[0]!;
      try {
        await command.gatewayUsageFlush(
          keys.counts,
          keys.flushed(call.id),
          FLUSHED_MARK_SECONDS,
          ...call.args,
        );
      } catch (error) {
        log('warn', 'usage', { err: error }, 'usage counts not flushed to Redis; kept for later');
        return;
      }
      unacknowledged.shift();
    }
  }

  /** After the flush under way, if any: it may have taken its counts before the caller's. */
  async function flush(): Promise<void> {
    while (flushing) await flushing;
    flushing = send().finally(() => {
      flushing = null;
    });
    return flushing;
  }

  const timer = setInterval(() => void flush(), options.flushIntervalMs);
  timer.unref();
  return {
    count: (clientId, method, route, status, ms, bytesOut) =>
      countRequest(counts, Date.now(), clientId, method, route, status, ms, bytesOut),
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

function withFlushCommand(redis: RedisClient): WithFlushCommand {
  if (!('gatewayUsageFlush' in redis)) {
    redis.defineCommand('gatewayUsageFlush', { numberOfKeys: 2, lua: FLUSH_SCRIPT });
  }
  return redis as unknown as WithFlushCommand;
}

/** What one process has counted and not yet flushed, by hour. */
export interface LiveCounts {
  /** The current hour's start and end (epoch ms), and its cells. */
  hour: number;
  hourEnd: number;
  cells: Map<string, LiveCell>;
  /** Earlier hours' cells, counted before the hour turned and not flushed yet. */
  earlier: HourCells[];
}

interface HourCells {
  hour: number;
  cells: Map<string, LiveCell>;
}

interface FlushCall {
  /** The flush's mark: a call sent again under it is added once. */
  id: string;
  args: (string | number)[];
}

/** One answered request into its hour's cell: a map lookup and a few increments. */
export function countRequest(
  counts: LiveCounts,
  now: number,
  clientId: number,
  method: string,
  route: string | null,
  status: number,
  ms: number,
  bytesOut: number,
): void {
  if (now >= counts.hourEnd) {
    if (counts.cells.size > 0) counts.earlier.push({ hour: counts.hour, cells: counts.cells });
    counts.cells = new Map();
    counts.hour = now - (now % HOUR_MS);
    counts.hourEnd = counts.hour + HOUR_MS;
  }
  const key = `${clientId} ${status} ${method} ${route}`;
  let cell = counts.cells.get(key);
  if (cell === undefined) {
    const latency = new Array<number>(LATENCY_BUCKETS).fill(0);
    cell = { clientId, method, route, status, requests: 0, bytesOut: 0, latency };
    counts.cells.set(key, cell);
  }
  cell.requests += 1;
  cell.bytesOut += bytesOut;
  cell.latency[latencyBucketOf(ms)]! += 1;
}

/** Every hour counted so far; the counters start again from nothing. */
export function takeHours(counts: LiveCounts): HourCells[] {
  const hours = [...counts.earlier, { hour: counts.hour, cells: counts.cells }];
  counts.earlier = [];
  counts.cells = new Map();
  return hours;
}

/** The hours' cells as script calls of at most FIELDS_PER_CALL fields each. */
export function flushCallsOf(hours: readonly HourCells[]): FlushCall[] {
  const fields: [string, number][] = [];
  for (const { hour, cells } of hours) {
    for (const live of cells.values()) {
      const cell: UsageCell = {
        hour,
        clientId: live.clientId,
        operation: operationOf(live.method, live.route),
        status: live.status,
        requests: live.requests,
        bytesOut: live.bytesOut,
        latency: live.latency,
      };
      fields.push(...cellFields(cell));
    }
  }
  const calls: FlushCall[] = [];
  for (let i = 0; i < fields.length; i += FIELDS_PER_CALL) {
    calls.push({ id: randomUUID(), args: fields.slice(i, i + FIELDS_PER_CALL).flat() });
  }
  return calls;
}

/**
 * Counts nothing: USAGE_COUNTING=off, or an app assembled without a counter (a test of something
 * else).
 */
export const NO_USAGE_COUNTER: UsageCounter = {
  count() {},
  flush: () => Promise.resolve(),
  close: () => Promise.resolve(),
};
