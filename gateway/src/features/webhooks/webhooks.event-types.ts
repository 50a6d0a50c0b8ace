// GET /webhooks/event-types (decision 0012): the feed types a client may subscribe to, as its
// scopes allow them, each with the events it brings and an example body, built from the
// resource's own example (api/resources/), so it shows exactly what a delivery carries.
import { CHANGE_TYPES, typesRead } from '#api/changes/change-types.js';

const EXAMPLE_AT = '2026-11-25T09:30:00.000Z';
/** Opaque: the change feed's signed cursor (GET /changes?cursor=) right after the change. */
const EXAMPLE_CURSOR = 'eyJ4IjoiOTM0MiIsImsiOjAsInQiOiJtZW1iZXJzIiwiaSI6M30.q8Zr4v0Hk2LJc9sX';

export interface EventTypeInfo {
  type: string;
  /** The scope that reads it. */
  scope: string;
  /** The `type` values of its events' bodies. */
  events: string[];
  /** An upsert's body, as delivered. */
  example: {
    type: string;
    timestamp: string;
    data: {
      type: string;
      id: number;
      op: 'upsert';
      branch_id: number | null;
      changed_at: string;
      data: Record<string, unknown>;
    };
    cursor: string;
  };
}

function exampleOf(type: string): Record<string, unknown> {
  const meta = CHANGE_TYPES[type]!.resource.schema.meta() as { examples?: unknown[] } | undefined;
  return (meta?.examples?.[0] as Record<string, unknown> | undefined) ?? {};
}

/** The types `scopes` may subscribe to, in the feed's order. */
export function eventTypesFor(scopes: readonly string[]): EventTypeInfo[] {
  return typesRead(scopes).map((type) => {
    const data = exampleOf(type);
    const id = typeof data.id === 'number' ? data.id : 1;
    const branch = typeof data.branch_id === 'number' ? data.branch_id : null;
    return {
      type,
      scope: CHANGE_TYPES[type]!.scope,
      // An erased member's recipients get `members.erase` instead of its delete.
      events: [
        `${type}.upsert`,
        `${type}.delete`,
        ...(type === 'members' ? ['members.erase'] : []),
      ],
      example: {
        type: `${type}.upsert`,
        timestamp: EXAMPLE_AT,
        data: { type, id, op: 'upsert', branch_id: branch, changed_at: EXAMPLE_AT, data },
        cursor: EXAMPLE_CURSOR,
      },
    };
  });
}
