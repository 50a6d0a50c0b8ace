// GET /changes: one feed of every change to what the API shows, deletes included, for partners
// that keep their own copy (docs/decisions/0011-change-feed.md). A row appears at its latest
// change only, with its object exactly as its resource's own GET answers it; the cursor never
// skips a change (api/changes/change-statement.ts) and never leaves the caller's branch.
import { z } from 'zod';
import { readChangePage } from '#api/changes/change-page.js';
import { CHANGE_TYPES, TYPE_NAMES } from '#api/changes/change-types.js';
import {
  floorOf,
  isPurgedPast,
  keyOf,
  presentOf,
  type Cursor,
  type CursorCodec,
} from '#api/changes/cursor.js';
import { defineEndpoint } from '../../endpoint-services.js';
import { AppError, validationError } from '../../http/errors.js';
import { decimalInteger } from '../../http/filters.js';
import { typesAsked } from './types-asked.js';

/** The cursor `text` holds; a 400 when it is not one of ours (edited, made up, malformed). */
function cursorOf(cursors: CursorCodec, text: string): Cursor {
  const cursor = cursors.decode(text);
  if (!cursor) {
    throw validationError([
      { field: 'cursor', message: 'Geçersiz imleç; imleçsiz yeniden başlayın.' },
    ]);
  }
  return cursor;
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

export const changeSchema = z
  .object({
    type: z.enum(TYPE_NAMES as [string, ...string[]]),
    id: z.int(),
    op: z.enum(['upsert', 'delete', 'erase']).meta({
      description:
        "`erase` (members only, beyond the specification): the member was erased at the club's request, and this client received its data before; delete every copy. Any other client sees a `delete`.",
    }),
    branch_id: z.int().nullable(),
    changed_at: z.iso.datetime(),
    data: z.looseObject({}).nullable().meta({
      description:
        "upsert: the object as the type's own GET answers it; delete: null; erase: `{id, member_no, erased_at}`",
    }),
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

export const listChangesEndpoint = defineEndpoint({
  operationId: 'listChanges',
  group: 'changes',
  method: 'GET',
  path: '/changes',
  summary: 'Değişiklik akışı',
  description:
    "Every change to what the API shows, deletes included, in commit order; a row appears at its latest change only. Follow `next_cursor` until `has_more` is false, then poll with the last one. Each type needs the read scope of its resource; a named type outside the scopes is 403. A bound client gets its branch's rows and those of no branch; a row that leaves its branch reaches it as a `delete`. The cursor is opaque and signed by the API: an edited or made-up one is 400 `VALIDATION_ERROR`. A cursor older than the retention (30 days by default), or one that has not yet read past deletes purged since (kept as long), is 410 `CURSOR_EXPIRED`: start again without a cursor.",
  access: null,
  query: changesQuery,
  response: changesResponse,
  errors: [410],
  // The cursor stands on the primary's transaction ids (api/changes/cursor.ts).
  primaryOnly: true,
  tables: Object.values(CHANGE_TYPES).map((t) => t.table),
  handle: async ({ query, auth, read, services, carries }) => {
    const { cursors, retentionMs } = services.changes;
    const types = typesAsked(query.types?.split(','), auth().scopes);
    const cursor = query.cursor === undefined ? null : cursorOf(cursors, query.cursor);
    if (cursor && cursor.at < Date.now() - retentionMs) throw cursorExpired();
    const scoped = read();
    if (query.from === 'now' || types.length === 0) {
      const present = presentOf(await scoped.sql.snapshotXmin());
      return { success: true, data: [], next_cursor: cursors.encode(present), has_more: false };
    }
    const after = cursor && keyOf(cursor);
    const page = await readChangePage(scoped.sql, {
      types,
      after,
      limit: query.limit,
      classes: auth().dataClasses,
    });
    // Deletes after the cursor were purged in the page's own snapshot: however young the cursor,
    // following it would miss them.
    if (cursor && isPurgedPast(cursor, page.horizon)) throw cursorExpired();
    // A read from no cursor starts its floor at this snapshot (api/changes/cursor.ts floorOf).
    const floor = cursor ? floorOf(cursor) : page.xmin;
    for (const { change } of page.changes)
      if (change.data) carries(CHANGE_TYPES[change.type]!.resource.schema, change.data);
    return {
      success: true,
      data: await services.changes.erasures(
        auth().clientId,
        page.changes.map(({ change }) => change),
      ),
      next_cursor: cursors.encode(page.next, { floor }),
      has_more: page.hasMore,
    };
  },
});
