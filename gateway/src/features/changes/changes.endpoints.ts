// GET /changes: one feed of every change to what the API shows, deletes included, for partners
// that keep their own copy (docs/decisions/0011-change-feed.md). A row appears at its latest
// change only, with its object exactly as its resource's own GET answers it; the cursor never
// skips a change (http/scoped-changes.ts) and never leaves the caller's branch.
import { z } from 'zod';
import type { Scope } from '../auth/scopes.js';
import { defineEndpoint } from '../../http/endpoint.js';
import { AppError, insufficientScope, validationError } from '../../http/errors.js';
import type { ScopedRead } from '../../http/scoped-read.js';
import { compareKeys, type ChangeKey, type ChangeRow } from '../../http/scoped-changes.js';
import type { SqlTable } from '../../http/scoped-sql.js';
import { decimalInteger } from '../../http/filters.js';
import { branchResource } from '../branches/branches.schemas.js';
import { installmentPlanResource, transactionResource } from '../financial/financial.schemas.js';
import { marketCategoryResource, marketProductResource } from '../market/market.endpoints.js';
import { memberPackageResource, memberResource } from '../members/members.schemas.js';
import { notificationResource } from '../notifications/notifications.endpoints.js';
import { packageResource } from '../packages/packages.endpoints.js';
import { presenceResource } from '../presence/presence.endpoints.js';
import { privateLessonResource } from '../private-lessons/private-lessons.endpoints.js';
import { staffResource } from '../staff/staff.endpoints.js';

interface ChangeType {
  table: SqlTable;
  scope: Scope;
  resource: {
    select: Record<string, true>;
    toApi: (row: Record<string, unknown>) => Record<string, unknown>;
  };
}

const changeType = (
  table: SqlTable,
  scope: Scope,
  resource: ChangeType['resource'],
): ChangeType => ({ table, scope, resource });

/** The feed's types: the table each is kept in, the scope that reads it, its resource. */
export const CHANGE_TYPES: Record<string, ChangeType> = {
  members: changeType('members', 'members:read', memberResource),
  member_packages: changeType('member_packages', 'members:read', memberPackageResource),
  branches: changeType('branches', 'branches:read', branchResource),
  packages: changeType('packages', 'packages:read', packageResource),
  financial_transactions: changeType(
    'financial_transactions',
    'financial:read',
    transactionResource,
  ),
  installment_plans: changeType('installment_plans', 'financial:read', installmentPlanResource),
  staff: changeType('staff', 'staff:read', staffResource),
  notifications: changeType('notifications', 'notifications:read', notificationResource),
  private_lessons: changeType('private_lessons', 'private_lessons:read', privateLessonResource),
  presence: changeType('presence_records', 'presence:read', presenceResource),
  market_products: changeType('market_products', 'market:read', marketProductResource),
  market_categories: changeType('market_categories', 'market:read', marketCategoryResource),
};
const TYPE_NAMES = Object.keys(CHANGE_TYPES);
const COLUMNS_OF = new Map(
  Object.values(CHANGE_TYPES).map(({ resource }) => [resource, Object.keys(resource.select)]),
);

// The cursor: the last key read and when the cursor was given, as base64url JSON. Opaque to
// partners; anything that does not decode to exactly this is not one of ours.
const cursorSchema = z.strictObject({
  x: z.string().regex(/^[0-9]{1,20}$/),
  k: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  t: z.string().max(40),
  i: z.int().min(0).max(2_147_483_647),
  at: z.int().positive(),
});
type Cursor = z.infer<typeof cursorSchema>;

/** Kind 2 sorts after every real kind: "every change of transaction x has been read". */
const ALL_OF_XID = 2;

/** Every change of a transaction below xmin is final: the present is "all of xmin - 1". */
const presentOf = (xmin: bigint): ChangeKey => ({
  xid: xmin - 1n,
  kind: ALL_OF_XID,
  type: '',
  id: 0,
});

function encodeCursor(key: ChangeKey): string {
  const cursor: Cursor = {
    x: key.xid.toString(),
    k: key.kind as Cursor['k'],
    t: key.type,
    i: key.id,
    at: Date.now(),
  };
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(text: string): Cursor {
  const bad = () =>
    validationError([{ field: 'cursor', message: 'Geçersiz imleç; imleçsiz yeniden başlayın.' }]);
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(text)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const cursor = cursorSchema.safeParse(parsed);
  if (!cursor.success) throw bad();
  return cursor.data;
}

const cursorExpired = () =>
  new AppError({
    status: 410,
    code: 'CURSOR_EXPIRED',
    message: 'İmleç saklama süresinden eski; imleçsiz yeniden başlayın.',
  });

export const changesQuery = z.object({
  cursor: z
    .string()
    .optional()
    .meta({ description: 'next_cursor of the previous page; none to start from the beginning' }),
  limit: decimalInteger({ min: 1, max: 1000 }).default(500),
  types: z
    .string()
    .optional()
    .meta({
      description: `Comma-separated subset of ${TYPE_NAMES.join(', ')}; default: every type the client's scopes allow`,
      examples: ['members,member_packages'],
    }),
  from: z.literal('now').optional().meta({
    description: '`now`: no changes, and the cursor of the present',
  }),
});

const changeSchema = z
  .object({
    type: z.enum(TYPE_NAMES as [string, ...string[]]),
    id: z.int(),
    op: z.enum(['upsert', 'delete']),
    branch_id: z.int().nullable(),
    changed_at: z.iso.datetime(),
    data: z
      .looseObject({})
      .nullable()
      .meta({ description: "upsert: the object as the type's own GET answers it; delete: null" }),
  })
  .meta({
    id: 'Change',
    examples: [
      {
        type: 'members',
        id: 3,
        op: 'upsert',
        branch_id: 1,
        changed_at: '2026-11-25T09:30:00.000Z',
        data: { id: 3, full_name: 'Ayşe', branch_id: 1 },
      },
    ],
  });

export const changesResponse = z
  .object({
    success: z.boolean(),
    data: z.array(changeSchema),
    next_cursor: z.string(),
    has_more: z.boolean(),
  })
  .meta({ id: 'ChangeListResponse' });

/**
 * The types asked for, each allowed by the caller's scopes; by default every type they allow,
 * which may be none (the feed is then empty).
 */
function typesAsked(types: string | undefined, scopes: readonly string[]): string[] {
  if (types === undefined) {
    return TYPE_NAMES.filter((type) => scopes.includes(CHANGE_TYPES[type]!.scope));
  }
  const named = [...new Set(types.split(','))];
  const unknown = named.filter((type) => !CHANGE_TYPES[type]);
  if (unknown.length > 0) {
    throw validationError([
      {
        field: 'types',
        message: `Bilinmeyen tür: ${unknown.join(', ')}. Türler: ${TYPE_NAMES.join(', ')}.`,
      },
    ]);
  }
  if (named.some((type) => !scopes.includes(CHANGE_TYPES[type]!.scope))) throw insufficientScope();
  return named;
}

/**
 * The objects of the upserts, read through the caller's scoped SQL (a page holds up to a
 * thousand rows: the ORM's cost per row was most of a page's time); absent ones are gone.
 */
async function objectsOf(read: ScopedRead, rows: ChangeRow[]) {
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
      const found = await read.sql.rows({
        table,
        where: ['id = ANY($1::int[])'],
        params: [ids],
        columns: COLUMNS_OF.get(resource)!,
      });
      for (const row of found) objects.set(`${type}:${String(row.id)}`, resource.toApi(row));
    }),
  );
  return objects;
}

export const listChangesEndpoint = defineEndpoint({
  operationId: 'listChanges',
  group: 'changes',
  method: 'GET',
  path: '/changes',
  summary: 'Değişiklik akışı',
  description:
    "Every change to what the API shows, deletes included, in commit order; a row appears at its latest change only. Follow `next_cursor` until `has_more` is false, then poll with the last one. Each type needs the read scope of its resource; a named type outside the scopes is 403. A bound client gets its branch's rows and those of no branch; a row that leaves its branch reaches it as a `delete`. A cursor older than the retention (30 days by default) is 410 `CURSOR_EXPIRED`.",
  access: null,
  query: changesQuery,
  response: changesResponse,
  errors: [410],
  tables: [
    'members',
    'member_packages',
    'branches',
    'packages',
    'financial_transactions',
    'installment_plans',
    'staff',
    'notifications',
    'private_lessons',
    'presence_records',
    'market_products',
    'market_categories',
  ],
  handle: async ({ query, auth, read, services }) => {
    const types = typesAsked(query.types, auth().scopes);
    const cursor = query.cursor === undefined ? null : decodeCursor(query.cursor);
    if (cursor && cursor.at < Date.now() - services.changes.retentionMs) throw cursorExpired();
    const scoped = read();
    if (query.from === 'now' || types.length === 0) {
      const present = presentOf(await scoped.sql.snapshotXmin());
      return { success: true, data: [], next_cursor: encodeCursor(present), has_more: false };
    }
    const after: ChangeKey | null = cursor && {
      xid: BigInt(cursor.x),
      kind: cursor.k,
      type: cursor.t,
      id: cursor.i,
    };
    const { xmin, rows } = await scoped.sql.changes({
      types: types.map((type) => ({ type, table: CHANGE_TYPES[type]!.table })),
      after,
      limit: query.limit,
    });
    const present = presentOf(xmin);
    const objects = await objectsOf(scoped, rows);
    const data = [];
    for (const row of rows) {
      const object = row.kind === 1 ? objects.get(`${row.type}:${row.id}`) : null;
      // An upsert whose row is gone or left the branch since: its delete comes later.
      if (object === undefined) continue;
      data.push({
        type: row.type,
        id: row.id,
        op: row.kind === 1 ? ('upsert' as const) : ('delete' as const),
        branch_id: row.branch_id,
        changed_at: row.changed_at,
        data: object,
      });
    }
    const hasMore = rows.length === query.limit;
    const last = rows.at(-1);
    // A cursor never goes back: a full page ends at its last key; a short one read everything
    // below xmin after the cursor.
    const next =
      hasMore && last ? last : after && compareKeys(after, present) > 0 ? after : present;
    return { success: true, data, next_cursor: encodeCursor(next), has_more: hasMore };
  },
});
