// The usage counts the gateways add to Redis are merged into PostgreSQL (usage_hours) every
// USAGE_MERGE_INTERVAL_MS, exactly once whatever the number of workers and gateways
// (docs/decisions/0015-usage-reports.md): one script renames the shared hash to a batch of its own
// name, so gateways start a new one and no count is in two batches; a batch is added to the table
// in the transaction that records its name in a ledger, so a batch two workers merge, or one
// merges again after a crash, counts once; only then is it deleted from Redis.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { cellsOf, LATENCY_COLUMNS, usageKeys, type UsageCell } from '#api/usage/usage-cells.js';
import type { ReadModelClient } from '#common/databases.js';
import type { ThrottledLog } from '#common/log-throttle.js';
import type { RedisClient } from '#common/redis.js';
import { join, raw, sql } from '#read-model/sql.js';
import { readModelTransaction } from '#read-model/transaction.js';

// KEYS: the counts hash, the set of batches, the new batch's name. Answers every batch waiting,
// the new one included: batches a worker renamed and did not finish are taken up by the next.
const CLAIM_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('RENAME', KEYS[1], KEYS[3])
  redis.call('SADD', KEYS[2], KEYS[3])
end
return redis.call('SMEMBERS', KEYS[2])
`;

interface WithClaimCommand {
  workerUsageClaim(counts: string, batches: string, batch: string): Promise<string[]>;
}

/** The counted columns of usage_hours, each added on conflict. */
const COUNTERS = ['requests', 'bytes_out', ...LATENCY_COLUMNS];

function counterValues(cells: UsageCell[], column: number): number[] {
  if (column === 0) return cells.map((cell) => cell.requests);
  if (column === 1) return cells.map((cell) => cell.bytesOut);
  return cells.map((cell) => cell.latency[column - 2] ?? 0);
}

/** One statement for a whole batch: arrays of values, one per column, unnested. */
function upsertCells(cells: UsageCell[]) {
  const names = raw(COUNTERS.join(', '));
  const arrays = join(
    COUNTERS.map((_, column) => sql`${counterValues(cells, column)}::bigint[]`),
    ', ',
  );
  const added = raw(COUNTERS.map((c) => `${c} = usage_hours.${c} + excluded.${c}`).join(', '));
  return sql`
    INSERT INTO usage_hours (hour, client_id, operation, status, ${names})
    SELECT * FROM unnest(
      ${cells.map((cell) => new Date(cell.hour).toISOString())}::timestamptz[],
      ${cells.map((cell) => cell.clientId)}::int[],
      ${cells.map((cell) => cell.operation)}::text[],
      ${cells.map((cell) => cell.status)}::int[],
      ${arrays})
    ON CONFLICT (client_id, hour, operation, status) DO UPDATE SET ${added}`;
}

/**
 * Cells one statement adds at most: a batch of many clients is added in pieces, each a few tens
 * of ms, in the batch's one transaction (docs/decisions/0018).
 */
const CELLS_PER_STATEMENT = 1000;

export interface UsageMergeDeps {
  readModel: ReadModelClient;
  redis: RedisClient;
  prefix: string;
}

/** One merge: every batch waiting in Redis into usage_hours. Returns the batches added. */
export async function mergeUsage(deps: UsageMergeDeps): Promise<number> {
  const { redis } = deps;
  const keys = usageKeys(deps.prefix);
  if (!('workerUsageClaim' in redis)) {
    redis.defineCommand('workerUsageClaim', { numberOfKeys: 3, lua: CLAIM_SCRIPT });
  }
  const command = redis as unknown as WithClaimCommand;
  const batches = await command.workerUsageClaim(
    keys.counts,
    keys.batches,
    keys.batch(randomUUID()),
  );
  let added = 0;
  for (const batch of batches) {
    const started = Date.now();
    const cells = cellsOf(await redis.hgetall(batch));
    if (cells.length > 0) {
      const first = await readModelTransaction(deps.readModel, async (tx) => {
        const recorded = await tx.$executeRaw`
          INSERT INTO usage_merges (batch) VALUES (${batch}) ON CONFLICT DO NOTHING`;
        if (recorded === 0) return false;
        for (let i = 0; i < cells.length; i += CELLS_PER_STATEMENT) {
          await tx.$executeRaw`${upsertCells(cells.slice(i, i + CELLS_PER_STATEMENT))}`;
        }
        return true;
      });
      if (first) added += 1;
    }
    // Same hash tag: one slot, so the two run as one transaction on a cluster too.
    await redis.multi().del(batch).srem(keys.batches, batch).exec();
    // A rest as long as the batch took, so merges hold at most half a database core.
    await sleep(Date.now() - started);
  }
  return added;
}

/** How long a stopping worker waits for the merge under way. */
const STOP_GRACE_MS = 2000;

/** Merges every `intervalMs`, one merge at a time; stop() waits briefly for the one running. */
export function startUsageMerge(deps: UsageMergeDeps & { intervalMs: number; log: ThrottledLog }): {
  stop(): Promise<void>;
} {
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= mergeUsage(deps)
      .then(
        () => undefined,
        (error: unknown) => {
          deps.log('warn', 'usage-merge', { err: error }, 'usage merge failed; tried again later');
        },
      )
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => void run(), deps.intervalMs);
  timer.unref();
  void run();
  return {
    async stop() {
      clearInterval(timer);
      // A merge cut short is safe (its batch stays in Redis until a merge commits it), so a stop
      // waits for it only briefly, never on a Redis or PostgreSQL that does not answer.
      await Promise.race([
        running,
        new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref()),
      ]);
    },
  };
}
