// The binary log position the follower resumes from: one read-model row (binlog_position),
// stored before the first loads begin and then written in the transaction that applies each
// batch (docs/decisions/0016, hand-off and position).
import type { ReadModelClient } from '#common/databases.js';
import type { ReadModelTx } from '#read-model/transaction.js';
import { sql } from '#read-model/sql.js';
import { legacyRows } from '../legacy-reader.js';
import type { SyncDatabases } from '../sync-databases.js';

export interface BinlogPosition {
  serverId: bigint;
  file: string;
  position: bigint;
  gtid: string | null;
}

export async function readBinlogPosition(
  readModel: ReadModelClient,
): Promise<BinlogPosition | null> {
  const row = await readModel.binlogPosition.findUnique({ where: { id: 1 } });
  return row
    ? { serverId: row.server_id, file: row.file, position: row.position, gtid: row.gtid }
    : null;
}

/** The legacy server's current end of log: where changes not yet committed will be written. */
export async function currentBinlogPosition(db: SyncDatabases): Promise<BinlogPosition> {
  // MySQL 8.2+ dropped SHOW MASTER STATUS for SHOW BINARY LOG STATUS; MariaDB has only the first.
  // Only a syntax error (1064) means the other form: a refusal (1227, grants lost) is the answer.
  const status = await legacyRows<{ File: string; Position: number | bigint }>(
    db.legacy,
    sql`SHOW MASTER STATUS`,
  ).catch((error: unknown) => {
    if ((error as { errno?: number } | null)?.errno !== 1064) throw error;
    return legacyRows<{ File: string; Position: number | bigint }>(
      db.legacy,
      sql`SHOW BINARY LOG STATUS`,
    );
  });
  const [end] = status;
  if (!end) throw new Error('the legacy server writes no binary log (SHOW MASTER STATUS is empty)');
  const [server] = await legacyRows<{ id: number | bigint }>(
    db.legacy,
    sql`SELECT @@server_id AS id`,
  );
  const [gtid] = await legacyRows<{ gtid: string | null }>(
    db.legacy,
    sql`SELECT BINLOG_GTID_POS(${end.File}, ${end.Position}) AS gtid`,
  ).catch(() => [{ gtid: null }]);
  return {
    serverId: BigInt(server?.id ?? 0),
    file: end.File,
    position: BigInt(end.Position),
    gtid: gtid?.gtid ?? null,
  };
}

/**
 * Stores the current end of log unless a position is stored already: called before any table's
 * first load starts, so every change committed during the loads lies after it and is read again.
 */
export async function storeStartPosition(db: SyncDatabases): Promise<BinlogPosition> {
  const stored = await readBinlogPosition(db.readModel);
  if (stored) return stored;
  const start = await currentBinlogPosition(db);
  await db.readModel.$executeRaw`INSERT INTO binlog_position (id, server_id, file, position, gtid)
    VALUES (1, ${start.serverId}, ${start.file}, ${start.position}, ${start.gtid})
    ON CONFLICT (id) DO NOTHING`;
  return (await readBinlogPosition(db.readModel)) ?? start;
}

/** Written in the transaction that applies the changes up to this position. */
export async function writeBinlogPosition(tx: ReadModelTx, at: BinlogPosition): Promise<void> {
  await tx.$executeRaw`INSERT INTO binlog_position (id, server_id, file, position, gtid, updated_at)
    VALUES (1, ${at.serverId}, ${at.file}, ${at.position}, ${at.gtid}, now())
    ON CONFLICT (id) DO UPDATE SET server_id = EXCLUDED.server_id, file = EXCLUDED.file,
      position = EXCLUDED.position, gtid = EXCLUDED.gtid, updated_at = EXCLUDED.updated_at`;
}

/**
 * Bytes of log the server has written past `from`: the rest of its file, then every later file
 * whole (SHOW BINARY LOGS lists each file with its size, the current one up to its end). A file
 * the server no longer lists (purged) counts every file it still holds.
 */
export async function bytesBehind(db: SyncDatabases, from: BinlogPosition): Promise<number> {
  const files = await legacyRows<{ Log_name: string; File_size: number | bigint }>(
    db.legacy,
    sql`SHOW BINARY LOGS`,
  );
  const at = files.findIndex((f) => f.Log_name === from.file);
  let behind = 0;
  for (const [i, f] of files.entries()) {
    if (i === at) behind += Math.max(0, Number(f.File_size) - Number(from.position));
    else if (i > at) behind += Number(f.File_size);
  }
  return behind;
}
