// The worker's operator CLIs' composition root (npm run sync:verify, sync:preflight), as
// start.ts createWorker is the worker's: what their commands use, made from the same factories
// on a command's first use, and closed in one place once it is done. No command makes a
// database client of its own.
import * as mariadb from 'mariadb';
import type { Config } from '#common/config.js';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import {
  createLegacyClient,
  legacyConnectionOf,
  type LegacyClient,
} from '#common/legacy-database.js';

export interface SyncCliServices {
  readonly config: Config;
  /** The read model. */
  readonly readModel: ReadModelClient;
  /** The dashboard's database, as the worker's user reads it. */
  readonly legacy: LegacyClient;
  /**
   * One connection to the dashboard's server as the worker's user, in no database: a user who
   * may not read it cannot open a session in it, and sync:preflight's report should say so.
   */
  legacyServer(): Promise<mariadb.Connection>;
  close(): Promise<void>;
}

/** A value made on its first read; `made()` is it, or undefined if nothing read it. */
function lazy<T>(make: () => T): { get: () => T; made: () => T | undefined } {
  let value: { v: T } | undefined;
  return { get: () => (value ??= { v: make() }).v, made: () => value?.v };
}

export function createSyncCliServices(config: Config): SyncCliServices {
  const readModel = lazy(() => createReadModelClient(config.db.url, { poolSize: 2 }));
  const legacy = lazy(() => createLegacyClient(config.legacy.url, { poolSize: 2 }));
  const server = lazy(() =>
    mariadb.createConnection({
      ...legacyConnectionOf(config.legacy.url),
      database: undefined,
      connectTimeout: 5000,
      allowPublicKeyRetrieval: true,
    }),
  );
  return {
    config,
    get readModel() {
      return readModel.get();
    },
    get legacy() {
      return legacy.get();
    },
    legacyServer: server.get,
    async close() {
      await Promise.all([
        readModel.made()?.$disconnect(),
        legacy.made()?.$disconnect(),
        server
          .made()
          ?.then((conn) => conn.end())
          .catch(() => undefined),
      ]);
    },
  };
}
