// The one sync engine: keyset polling of a legacy table on (changed-at, key), idempotent upserts
// into the read model, and the table's position committed in the same PostgreSQL transaction.
//
// Late commits: a dashboard transaction may commit seconds after the updated_at it wrote, so
// the stored position never passes "legacy now - look-back"; each poll re-reads that window
// and the upsert's IS DISTINCT FROM guard keeps unchanged rows from being written again.
// Tables without a change column are polled for new ids only; their in-place changes and
// deletes are left to the reconciliation (reconcile.ts).
import { Prisma as LegacySql } from '../../../prisma/generated/legacy/client.js';
import type { LegacyClient, ReadModelClient } from '../../../common/databases.js';
import { applyLegacyRows, columnName } from './read-model-writes.js';
import { legacyWallClock } from './legacy-values.js';
import type { RejectListener } from './rejects.js';
import type { LegacyRow, SyncTable } from './table-definition.js';

export interface SyncOptions {
  /** Seconds behind legacy "now" that the stored position stays, for late commits. */
  lookbackSeconds: number;
  batchSize: number;
  /** A run stops after this long even if not caught up; the next run resumes from the position. */
  timeBudgetMs: number;
}

export const DEFAULT_SYNC_OPTIONS: SyncOptions = {
  lookbackSeconds: 10,
  batchSize: 2000,
  timeBudgetMs: 20_000,
};

interface Position {
  changedAt: Date | null;
  id: bigint;
}

export interface SyncRunResult {
  table: string;
  rowsRead: number;
  rowsWritten: number;
  caughtUp: boolean;
  /** Where the run's time went: reading the legacy table, writing the read model. */
  legacyReadMs: number;
  writeMs: number;
}

export interface SyncDatabases {
  legacy: LegacyClient;
  readModel: ReadModelClient;
  /** Told of newly rejected rows, to count and log them (rejects.ts). */
  onRejected?: RejectListener;
}

export async function syncTable(
  table: SyncTable,
  db: SyncDatabases,
  options: SyncOptions = DEFAULT_SYNC_OPTIONS,
): Promise<SyncRunResult> {
  const started = Date.now();
  const state = await db.readModel.syncState.findUnique({ where: { table_name: table.name } });
  let position: Position = {
    changedAt: state?.cursor_changed_at ?? null,
    id: state?.cursor_id ?? 0n,
  };
  const result: SyncRunResult = {
    table: table.name,
    rowsRead: 0,
    rowsWritten: 0,
    caughtUp: false,
    legacyReadMs: 0,
    writeMs: 0,
  };

  while (!result.caughtUp && Date.now() - started < options.timeBudgetMs) {
    const readStartedAt = new Date();
    const legacyNow = table.changedAt ? await legacyClock(db.legacy) : null;
    const rows = await readBatch(db.legacy, table, position, options.batchSize);
    const writeStartedAt = Date.now();
    result.legacyReadMs += writeStartedAt - readStartedAt.getTime();
    result.rowsRead += rows.length;
    result.caughtUp = rows.length < options.batchSize;

    const last = rows.at(-1);
    if (last) {
      position = {
        changedAt: table.changedAt ? positionTime(last[columnName(table.changedAt)]) : null,
        id: BigInt(last[columnName(table.key)] as bigint | number),
      };
    }
    const horizon = legacyNow && new Date(legacyNow.getTime() - options.lookbackSeconds * 1000);
    const stored: Position =
      horizon && position.changedAt && position.changedAt > horizon
        ? { changedAt: horizon, id: 0n }
        : position;

    result.rowsWritten += await db.readModel.$transaction(async (tx) => {
      const written = await applyLegacyRows(tx, table, rows, db.onRejected);
      await tx.syncState.upsert({
        where: { table_name: table.name },
        create: {
          table_name: table.name,
          cursor_changed_at: stored.changedAt,
          cursor_id: stored.id,
          synced_at: result.caughtUp ? readStartedAt : null,
          rows_synced: written,
        },
        update: {
          cursor_changed_at: stored.changedAt,
          cursor_id: stored.id,
          ...(result.caughtUp ? { synced_at: readStartedAt } : {}),
          rows_synced: { increment: written },
          updated_at: new Date(),
        },
      });
      return written;
    });
    result.writeMs += Date.now() - writeStartedAt;
  }
  return result;
}

/**
 * The change column of a batch's last row (read as text, see legacy-values.ts) as a position. A
 * zero or partly zero value ('0000-00-00 00:00:00', '2020-00-10 ...') becomes the first real
 * time after it in MySQL's order (month and day 0 -> 1), so the position always moves forward.
 */
function positionTime(value: unknown): Date {
  const valid = legacyWallClock(value);
  if (valid) return valid;
  const [year = 0, month = 0, day = 0, h = 0, m = 0, s = 0] = String(value)
    .split(/[^0-9]+/)
    .map(Number);
  const position = new Date(0);
  position.setUTCFullYear(year, Math.max(month, 1) - 1, Math.max(day, 1));
  position.setUTCHours(h, m, s, 0);
  return position;
}

/** The legacy database's own clock, in its wall-clock form (the session runs at +03:00). */
async function legacyClock(legacy: LegacyClient): Promise<Date> {
  const [row] = await legacy.$queryRaw<{ now: Date }[]>`SELECT NOW() AS now`;
  if (!row) throw new Error('legacy NOW() returned no row');
  return row.now;
}

function readBatch(legacy: LegacyClient, table: SyncTable, from: Position, limit: number) {
  const key = LegacySql.raw(table.key);
  if (!table.changedAt) {
    return legacy.$queryRaw<
      LegacyRow[]
    >`${table.source} WHERE ${key} > ${from.id} ORDER BY ${key} LIMIT ${limit}`;
  }
  const changedAt = LegacySql.raw(table.changedAt);
  // The leading `>=` makes this a range scan of the (changed-at, id) index in index order, so a
  // batch costs its own rows and never a sort of everything past the position.
  const after = from.changedAt
    ? LegacySql.sql`WHERE ${changedAt} >= ${from.changedAt} AND (${changedAt} > ${from.changedAt} OR ${key} > ${from.id})`
    : LegacySql.empty;
  return legacy.$queryRaw<
    LegacyRow[]
  >`${table.source} ${after} ORDER BY ${changedAt}, ${key} LIMIT ${limit}`;
}
