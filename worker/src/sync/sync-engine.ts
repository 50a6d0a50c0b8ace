// The one sync engine: keyset polling of a legacy table on (changed-at, key), idempotent upserts
// into the read model, and the table's position committed in the same PostgreSQL transaction.
//
// Late commits: a dashboard transaction may commit seconds after the updated_at it wrote, so
// the stored position never passes "legacy now - look-back"; each poll re-reads that window
// and the upsert's IS DISTINCT FROM guard keeps unchanged rows from being written again.
import { Prisma as LegacySql } from '../../../prisma/generated/legacy/client.js';
import { Prisma as Sql } from '../../../prisma/generated/read-model/client.js';
import type { LegacyClient, ReadModelClient } from '../../../common/databases.js';
import type { LegacyRow, ReadModelRow, SyncTable } from './table-definition.js';

export interface SyncOptions {
  /** Seconds behind legacy "now" that the stored position stays, for late commits. */
  lookbackSeconds: number;
  batchSize: number;
  /** A run stops after this long even if not caught up; the next run resumes from the position. */
  timeBudgetMs: number;
}

export const DEFAULT_SYNC_OPTIONS: SyncOptions = {
  lookbackSeconds: 10,
  batchSize: 1000,
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
}

// PostgreSQL allows 65535 bind parameters per statement; stay well below.
const MAX_PARAMS_PER_STATEMENT = 30_000;

const columnName = (qualified: string) => qualified.split('.').pop() ?? qualified;
const ident = (name: string) => Sql.raw(`"${name.replace(/"/g, '""')}"`);

export async function syncTable(
  table: SyncTable,
  db: { legacy: LegacyClient; readModel: ReadModelClient },
  options: SyncOptions = DEFAULT_SYNC_OPTIONS,
): Promise<SyncRunResult> {
  const started = Date.now();
  const state = await db.readModel.syncState.findUnique({ where: { table_name: table.name } });
  let position: Position = {
    changedAt: state?.cursor_changed_at ?? null,
    id: state?.cursor_id ?? 0n,
  };
  const result: SyncRunResult = { table: table.name, rowsRead: 0, rowsWritten: 0, caughtUp: false };

  while (!result.caughtUp && Date.now() - started < options.timeBudgetMs) {
    const readStartedAt = new Date();
    const legacyNow = await legacyClock(db.legacy);
    const rows = await readBatch(db.legacy, table, position, options.batchSize);
    result.rowsRead += rows.length;
    result.caughtUp = rows.length < options.batchSize;

    const last = rows.at(-1);
    if (last) {
      position = {
        changedAt: last[columnName(table.changedAt)] as Date,
        id: BigInt(last[columnName(table.key)] as bigint | number),
      };
    }
    const horizon = new Date(legacyNow.getTime() - options.lookbackSeconds * 1000);
    const stored: Position =
      position.changedAt && position.changedAt > horizon
        ? { changedAt: horizon, id: 0n }
        : position;

    result.rowsWritten += await db.readModel.$transaction(async (tx) => {
      const written = await applyRows(tx, table, rows);
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
  }
  return result;
}

/** The legacy database's own clock, in its wall-clock form (the session runs at +03:00). */
async function legacyClock(legacy: LegacyClient): Promise<Date> {
  const [row] = await legacy.$queryRaw<{ now: Date }[]>`SELECT NOW() AS now`;
  if (!row) throw new Error('legacy NOW() returned no row');
  return row.now;
}

function readBatch(legacy: LegacyClient, table: SyncTable, from: Position, limit: number) {
  const changedAt = LegacySql.raw(table.changedAt);
  const key = LegacySql.raw(table.key);
  const after = from.changedAt
    ? LegacySql.sql`WHERE ${changedAt} > ${from.changedAt} OR (${changedAt} = ${from.changedAt} AND ${key} > ${from.id})`
    : LegacySql.empty;
  return legacy.$queryRaw<
    LegacyRow[]
  >`${table.source} ${after} ORDER BY ${changedAt}, ${key} LIMIT ${limit}`;
}

type Tx = Parameters<Parameters<ReadModelClient['$transaction']>[0]>[0];

/** Upserts live rows, deletes gone ones, refreshes dependents; returns rows actually changed. */
export async function applyRows(tx: Tx, table: SyncTable, rows: LegacyRow[]): Promise<number> {
  const live: ReadModelRow[] = [];
  const gone: number[] = [];
  for (const row of rows) {
    const mapped = table.map(row);
    if (mapped) live.push(mapped);
    else gone.push(Number(row[columnName(table.key)]));
  }
  let changed = 0;
  const chunkSize = Math.max(1, Math.floor(MAX_PARAMS_PER_STATEMENT / table.columns.length));
  for (let i = 0; i < live.length; i += chunkSize) {
    changed += await upsertChunk(tx, table, live.slice(i, i + chunkSize));
  }
  if (gone.length > 0) {
    changed += await tx.$executeRaw`DELETE FROM ${ident(table.name)} WHERE id = ANY(${gone})`;
  }
  const ids = live.map((row) => row.id as number);
  if (ids.length > 0) {
    for (const dependent of table.dependents ?? []) {
      const sets = Object.entries(dependent.columns).map(([column, expression]) => ({
        column,
        expression,
      }));
      const assignments = Sql.join(
        sets.map((s) => Sql.sql`${ident(s.column)} = ${Sql.raw(s.expression)}`),
      );
      const stale = Sql.join(
        sets.map((s) => Sql.sql`d.${ident(s.column)} IS DISTINCT FROM ${Sql.raw(s.expression)}`),
        ' OR ',
      );
      // Run for every row of the batch, not only changed ones: a copy written by a concurrent
      // run of the dependent table from an older read is mended on the next look-back pass.
      await tx.$executeRaw`UPDATE ${ident(dependent.table)} d SET ${assignments}
        FROM ${ident(table.name)} s
        WHERE d.${ident(dependent.foreignKey)} = s.id AND s.id = ANY(${ids}) AND (${stale})`;
    }
  }
  return changed;
}

async function upsertChunk(tx: Tx, table: SyncTable, rows: ReadModelRow[]): Promise<number> {
  const columns = table.columns;
  const columnList = Sql.join(columns.map(ident));
  const values = Sql.join(
    rows.map((row) => Sql.sql`(${Sql.join(columns.map((c) => row[c] ?? null))})`),
  );
  const updatable = columns.filter((c) => c !== 'id');
  const assignments = Sql.join(updatable.map((c) => Sql.sql`${ident(c)} = EXCLUDED.${ident(c)}`));
  const current = Sql.join(updatable.map((c) => Sql.sql`t.${ident(c)}`));
  const incoming = Sql.join(updatable.map((c) => Sql.sql`EXCLUDED.${ident(c)}`));
  return tx.$executeRaw`INSERT INTO ${ident(table.name)} AS t (${columnList}) VALUES ${values}
    ON CONFLICT (id) DO UPDATE SET ${assignments}
    WHERE (${current}) IS DISTINCT FROM (${incoming})`;
}
