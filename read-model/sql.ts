// The one way SQL is built for the raw drivers, pg (the read model) and mariadb (the legacy
// database): Prisma.Sql fragments, written as tagged templates (`sql`) and composed with `join`,
// `raw` (names and SQL of the project's own declarations, never values) and `empty`. The hot
// paths need composition: the sync's upsert and dependent refreshes are built from parts made
// once per table (read-model/writes), the gateway nests its audit statement in the one that
// applies a member, the keyset batch query wraps a table's source, the gateway's SQL reads
// (api/scoped-sql.ts) add the caller's branch condition to a feature's. A fragment numbers its
// parameters wherever it lands, so no caller counts `$n` by hand, and one fragment runs on either
// driver: `.text` (`$1`) on pg, `.sql` (`?`) on mariadb.
import pg from 'pg';
import { Prisma } from '#prisma/generated/read-model/client.js';

export type Sql = Prisma.Sql;
export const { sql, join, raw, empty } = Prisma;

/** A read-model (PostgreSQL) name, quoted. */
export const ident = (name: string) => raw(pg.escapeIdentifier(name));

/** A pg pool, client or connection. */
export type PgQueryable = Pick<pg.Pool, 'query'>;

/** Runs a statement on pg; returns its rows. */
export async function pgRows<R extends pg.QueryResultRow>(
  db: PgQueryable,
  statement: Sql,
): Promise<R[]> {
  return (await db.query<R>(statement.text, statement.values)).rows;
}
