// Whether a client may receive webhooks, and a given event, as its rights are now: checked when
// dispatch reads the feed for it and again when each event's turn comes, so an event recorded
// (or replayed) before a right was taken away is never sent (decision 0012). The branch rule is
// api/branch-rule.ts's, as everywhere.
import { admitsRow } from '../branch-rule.js';
import { CHANGE_TYPES, scopesRead } from '../changes/change-types.js';
import { dataScopeOf } from '../data-scope.js';
import type { Scope } from '../scopes.js';

const MANAGE: Scope = 'webhooks:manage';

export interface ClientRights {
  is_active: boolean;
  scopes: readonly string[];
  /** The client's branch binding; null for every branch. */
  branch_id: number | null;
}

/** Whether the client receives webhooks at all: active, and holding webhooks:manage. */
export const receivesWebhooks = (client: ClientRights) =>
  client.is_active && client.scopes.includes(MANAGE);

/**
 * Whether the client may receive an event now: it receives webhooks, reads the event's type, and
 * its binding admits the event's row (`row_branch_id`, the change's branch_id).
 */
export function mayReceive(
  client: ClientRights,
  event: { event_type: string; row_branch_id: number | null },
): boolean {
  // event_type is "<type>.<op>"; no type name has a dot.
  const type = event.event_type.slice(0, event.event_type.lastIndexOf('.'));
  return (
    receivesWebhooks(client) &&
    scopesRead(client.scopes, type) &&
    admitsRow(dataScopeOf(client.branch_id), CHANGE_TYPES[type]!.table, event.row_branch_id)
  );
}
