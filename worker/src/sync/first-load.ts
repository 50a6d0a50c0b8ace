// A table's first run: where its load starts (in key order, from 0), and the secondary indexes it
// drops while the read model's copy of the table is empty and builds once the load has caught up
// (docs/decisions/0002, first load).
import { ident, pgRows, sql } from '#read-model/sql.js';
import { ListenedClient, readModelPool, type ReadModelClient } from '#common/databases.js';
import type { SyncTable } from '#read-model/table-definition.js';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import { readModelTransaction } from '#read-model/transaction.js';
import { legacyClock } from './legacy-reader.js';
import type { SyncDatabases, SyncOptions } from './sync-databases.js';
import type { Position } from './sync-position.js';

/**
 * The first run of a table: its sync_state row, where a table with a change column starts a load
 * in key order (load_cursor 0) and, once every key is read, goes on by change time from the
 * load's start minus the look-back, for the rows changed while it ran. A table whose read-model
 * copy is empty also drops its secondary indexes: a backfill then writes each row once, and each
 * index is built once, sorted, when the load has caught up (restoreIndexes), instead of being
 * updated row by row (the search indexes, GIN over trigrams, the dearest). Their definitions are
 * kept in the same row, committed with the drop, so a worker killed mid-load builds them when the
 * resumed load catches up. Unique indexes stay: the upserts need them. The table's rejects are
 * cleared: the load reads every row again.
 */
export async function startFirstLoad(
  table: SyncTable,
  db: SyncDatabases,
  options: SyncOptions,
): Promise<{ position: Position; deferredIndexes: string[] }> {
  const legacyNow = table.changedAt ? await legacyClock(db.legacy) : null;
  const position: Position = {
    changedAt: legacyNow && new Date(legacyNow.getTime() - options.lookbackSeconds * 1000),
    id: 0n,
    loadKey: legacyNow && 0n,
  };
  return readModelTransaction(db.readModel, async (tx) => {
    const [probe] = await tx.$queryRaw<{ empty: boolean }[]>`
      SELECT NOT EXISTS (SELECT 1 FROM ${ident(table.name)}) AS empty`;
    const secondary = probe?.empty
      ? await tx.$queryRaw<{ name: string; definition: string; leading: string | null }[]>`
          SELECT c.relname AS name, pg_get_indexdef(x.indexrelid) AS definition, a.attname AS leading
          FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
          LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]
          WHERE x.indrelid = ${table.name}::regclass AND NOT x.indisunique ORDER BY c.relname`
      : [];
    const lookedUp = lookupColumns(table.name);
    const indexes = secondary.filter((index) => !index.leading || !lookedUp.has(index.leading));
    for (const index of indexes) await tx.$executeRaw`DROP INDEX ${ident(index.name)}`;
    const deferredIndexes = indexes.map((index) => index.definition);
    // The load reads every row again: those that still cannot be represented are set aside
    // again, and its batches in key order need not clear rejects row by row.
    await tx.$executeRaw`DELETE FROM sync_rejects WHERE table_name = ${table.name}`;
    await tx.$executeRaw`INSERT INTO sync_state
        (table_name, cursor_changed_at, cursor_id, load_cursor, deferred_indexes)
      VALUES (${table.name}, ${position.changedAt?.toISOString() ?? null}::timestamp, 0,
        ${position.loadKey}, ${deferredIndexes}::text[])`;
    return { position, deferredIndexes };
  });
}

/**
 * Columns of a read-model table that a refresh of its dependents looks rows up by once per row it
 * updates, as the declarations list them (`lookups`: the subquery `FROM installments i WHERE
 * i.plan_id = d.id` looks installments up by plan_id). Indexes led by
 * them stay through the table's first load, or the refresh at its own catch-up would scan it once
 * per plan. The columns this table's copies are joined by (`d.member_id = s.id`) are not among
 * them: while the table loads, the refreshes that join it are one scan per statement (the other
 * table's catch-up, and the gone rows of its batches), cheaper than keeping the index up to date
 * row by row (docs/decisions/0002, first load).
 */
function lookupColumns(tableName: string): Set<string> {
  return new Set(
    SYNC_TABLES.flatMap((source) =>
      (source.dependents ?? []).flatMap((dependent) => dependent.lookups?.[tableName] ?? []),
    ),
  );
}

/** Builds the indexes startFirstLoad dropped (any a crash left unbuilt) and forgets them. */
export async function restoreIndexes(
  table: SyncTable,
  readModel: ReadModelClient,
  definitions: string[],
) {
  // A build takes as long as the table is big: it runs on a connection of its own, without the
  // bound on one sync statement (SYNC_QUERY_TIMEOUT_MS), which would fail it on every retry. Each
  // build commits on its own; IF NOT EXISTS skips those a failed attempt already made.
  const client = new ListenedClient({
    connectionString: readModelPool(readModel).options.connectionString,
  });
  await client.connect();
  try {
    // The trigram GIN builds gather their entries in maintenance_work_mem: the server's default
    // (64 MB) makes the members' search index flush several times (1.35 s for 104,000 members,
    // 1.06 s with 256 MB).
    await client.query(`SET maintenance_work_mem = '256MB'`);
    for (const definition of definitions) {
      await client.query(definition.replace(/^CREATE INDEX /, 'CREATE INDEX IF NOT EXISTS '));
    }
    await pgRows(
      client,
      sql`UPDATE sync_state SET deferred_indexes = '{}' WHERE table_name = ${table.name}`,
    );
  } finally {
    await client.end();
  }
}
