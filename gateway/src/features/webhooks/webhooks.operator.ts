// The operator's disable and enable of a webhook subscription, shared by the CLI
// (webhooks.commands.ts) and the console (features/console/): the change and its record in the
// operator audit.
import type { ReadModelClient } from '#common/databases.js';
import { recordOperatorAction, type Operator } from '../operators/operator-audit.js';
import { OperatorRefusal } from '../../cli/operator-refusal.js';
import { OPERATOR, type WebhookService } from './webhooks.service.js';

/**
 * The operator's disable holds the subscription's origin (host and port) for its client, or with
 * `pathOnly` its URL's path alone (docs/decisions/0012-webhooks.md); the enable lifts either.
 */
export async function setSubscriptionEnabledAs(
  deps: { db: ReadModelClient; webhooks: WebhookService },
  operator: Operator,
  id: number,
  enabled: boolean,
  options: { pathOnly?: boolean } = {},
) {
  const service = deps.webhooks;
  const pathOnly = options.pathOnly === true;
  const current = await service.find(null, id);
  if (!current)
    throw new OperatorRefusal(`no webhook subscription with id ${id}`, 2, {
      reason: { key: 'no-subscription', id },
    });
  // The operator's disable replaces an automatic one ("gone", "failing"): the partner can lift
  // those, and the operator means to hold the subscription. Disabled again, it keeps its time and
  // takes the hold asked for now.
  const changed =
    !enabled && current.disabled_reason === OPERATOR
      ? await service.setHoldScope(id, pathOnly)
      : await service.setEnabled(null, id, enabled, OPERATOR, { pathOnly });
  if (!changed)
    throw new OperatorRefusal(`no webhook subscription with id ${id}`, 2, {
      reason: { key: 'no-subscription', id },
    });
  const client = await deps.db.apiClient.findUnique({
    where: { id: current.client_id },
    select: { client_key: true },
  });
  await recordOperatorAction(deps.db, operator, enabled ? 'webhooks.enable' : 'webhooks.disable', {
    clientKey: client?.client_key ?? null,
    target: `subscription ${id}${!enabled && pathOnly ? ' (path only)' : ''}`,
  });
  return changed;
}

/**
 * The operator's enable of a subscription its client deleted after the operator's disable: the
 * target it held may be subscribed to again (docs/decisions/0012-webhooks.md). Null when the id
 * never held a target.
 */
export async function releaseHeldTargetAs(
  deps: { db: ReadModelClient; webhooks: WebhookService },
  operator: Operator,
  id: number,
) {
  const released = await deps.webhooks.releaseHeld(id);
  if (released.length === 0) return null;
  const client = await deps.db.apiClient.findUnique({
    where: { id: released[0]!.client_id },
    select: { client_key: true },
  });
  await recordOperatorAction(deps.db, operator, 'webhooks.enable', {
    clientKey: client?.client_key ?? null,
    target: `deleted subscription ${id}`,
  });
  return released;
}
