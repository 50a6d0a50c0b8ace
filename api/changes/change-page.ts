// One page of the change feed as a caller may see it: its changes, each with the key right
// after it, and where the next page starts. Read by GET /changes and by the webhook dispatcher
// (worker/src/webhooks/dispatch.ts), so a partner gets the same changes by either way.
import { sql } from '#read-model/sql.js';
import { projectionFor, type ClassMask } from '../data-classes.js';
import type { ScopedSql } from '../scoped-sql.js';
import { compareKeys, type ChangeKey, type ChangeRow } from './change-statement.js';
import { CHANGE_TYPES } from './change-types.js';
import { presentOf } from './cursor.js';

export interface Change {
  type: string;
  id: number;
  /** `erase`: an erased member's deletion, as its recipients are told (./erasures.ts). */
  op: 'upsert' | 'delete' | 'erase';
  branch_id: number | null;
  changed_at: string;
  /** upsert: the object as the type's own GET answers it; delete: null; erase: the receipt. */
  data: Record<string, unknown> | null;
}

export interface ChangePage {
  /** Each change and the feed's key at it (a cursor there resumes right after it). */
  changes: { change: Change; key: ChangeKey }[];
  /** Where the next page starts: never before `after`. */
  next: ChangeKey;
  hasMore: boolean;
  /** The page's snapshot xmin: every change of an older transaction was readable. */
  xmin: bigint;
  /** The last transaction whose deletes of these types were purged, in that snapshot (0: none). */
  horizon: bigint;
}

/**
 * The objects of the upserts, read through the caller's scoped SQL (a page holds up to a
 * thousand rows: the ORM's cost per row was most of a page's time); absent ones are gone.
 */
async function objectsOf(scoped: ScopedSql, rows: ChangeRow[], classes: ClassMask) {
  const objects = new Map<string, Record<string, unknown>>();
  const idsByType = new Map<string, number[]>();
  for (const row of rows) {
    if (row.kind !== 1) continue;
    const ids = idsByType.get(row.type);
    if (ids) ids.push(row.id);
    else idsByType.set(row.type, [row.id]);
  }
  await Promise.all(
    [...idsByType].map(async ([type, ids]) => {
      const { table, resource } = CHANGE_TYPES[type]!;
      const found = await scoped.rows({
        table,
        where: [sql`id = ANY(${ids}::int[])`],
        resource,
      });
      const withheld = projectionFor(resource.schema, classes);
      for (const object of found)
        objects.set(`${type}:${String(object.id)}`, withheld(object) as Record<string, unknown>);
    }),
  );
  return objects;
}

/**
 * The changes of `types` after `after` (null: from the beginning), at most `limit` keys, their
 * objects with the fields of `classes` only (api/data-classes.ts).
 */
export async function readChangePage(
  scoped: ScopedSql,
  query: {
    types: readonly string[];
    after: ChangeKey | null;
    limit: number;
    classes: ClassMask;
  },
): Promise<ChangePage> {
  const { xmin, horizon, rows } = await scoped.changes({
    types: query.types.map((type) => ({ type, table: CHANGE_TYPES[type]!.table })),
    after: query.after,
    limit: query.limit,
  });
  const present = presentOf(xmin);
  const objects = await objectsOf(scoped, rows, query.classes);
  const changes: ChangePage['changes'] = [];
  for (const row of rows) {
    const object = row.kind === 1 ? objects.get(`${row.type}:${row.id}`) : null;
    // An upsert whose row is gone or left the branch since: its delete comes later.
    if (object === undefined) continue;
    const change: Change = {
      type: row.type,
      id: row.id,
      op: row.kind === 1 ? 'upsert' : 'delete',
      branch_id: row.branch_id,
      changed_at: row.changed_at,
      data: object,
    };
    changes.push({ change, key: row });
  }
  const hasMore = rows.length === query.limit;
  const last = rows.at(-1);
  const after = query.after;
  // A cursor never goes back: a full page ends at its last key; a short one read everything
  // below xmin after the cursor.
  const next = hasMore && last ? last : after && compareKeys(after, present) > 0 ? after : present;
  return { changes, next, hasMore, xmin, horizon };
}
