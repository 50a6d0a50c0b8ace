// One read-model transaction on a connection of the read-model client's pg pool, and columnName
// (a qualified legacy column's own name).
import { sql } from './sql.js';
import { readModelPool, type ReadModelClient } from '#common/databases.js';
import { copyIn } from './copy-rows.js';

/**
 * What the write path needs of a read-model transaction: raw statements as tagged templates.
 * readModelTransaction provides it; so does an interactive transaction of the ORM.
 */
export interface ReadModelTx {
  $executeRaw(query: TemplateStringsArray, ...values: unknown[]): Promise<number>;
  $queryRaw<T>(query: TemplateStringsArray, ...values: unknown[]): Promise<T>;
  /** `COPY ... FROM STDIN` of `data` (copy-rows.ts); returns the rows copied. */
  copyIn(statement: string, data: Buffer): Promise<number>;
}

/**
 * Runs `work` in one transaction on a connection of the read-model client's pg pool. The sync
 * writes through it rather than the ORM's interactive transactions, which serialise every
 * statement and its parameters once more (a batch's rows travel as one JSON text of megabytes)
 * and hold the connection for its run: a profile of the backfill put a third of the worker's
 * time there (docs/decisions/0002-sync-by-polling-with-look-back.md, first load).
 */
export async function readModelTransaction<T>(
  readModel: ReadModelClient,
  work: (tx: ReadModelTx) => Promise<T>,
): Promise<T> {
  const client = await readModelPool(readModel).connect();
  const run = (strings: TemplateStringsArray, values: unknown[]) => {
    const query = sql(strings, ...values);
    return client.query(query.text, query.values);
  };
  const tx: ReadModelTx = {
    $executeRaw: async (strings, ...values) => (await run(strings, values)).rowCount ?? 0,
    $queryRaw: async <R>(strings: TemplateStringsArray, ...values: unknown[]) =>
      (await run(strings, values)).rows as R,
    copyIn: (statement, data) => copyIn(client, statement, data),
  };
  try {
    await client.query('BEGIN');
    const result = await work(tx);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (error) {
    // The connection may be mid-statement (a timeout): it is discarded, never handed out again.
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(true);
    throw error;
  }
}

export const columnName = (qualified: string) => qualified.split('.').pop() ?? qualified;
