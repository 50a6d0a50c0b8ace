// A subscription enabled, disabled or deleted, and the operator's hold that outlasts a delete: a
// subscription the operator disabled keeps its client off its target (webhook_held_targets),
// deleted or not, until the operator enables it.
import type { ReadModelClient } from '#common/databases.js';
import { dueAtOnce } from '#api/webhooks/overdue.js';
import { holdKey } from '#api/webhooks/targets.js';
import { credentialsColumns, type Credentials } from '#api/webhooks/credentials.js';
import type { DisabledReason } from '#api/webhooks/vocabulary.js';
import { insufficientScope } from '../../http/errors.js';
import { owned, PUBLIC_FIELDS, type Owner } from './webhooks.records.js';
import { OPERATOR, type Transaction } from './webhooks.rules.js';

/**
 * Deleted with its events. One the operator disabled leaves its target (origin, or path with
 * `--path-only`) held for its client (webhook_held_targets), so that subscribing again does not
 * undo the operator's disable.
 */
export async function removeSubscription(
  db: ReadModelClient,
  owner: Owner,
  id: number,
): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const [gone] = await tx.$queryRaw<
      { client_id: number; url: string; reason: string; path_only: boolean }[]
    >`
          DELETE FROM webhook_subscriptions
           WHERE id = ${id} AND (${owner}::int IS NULL OR client_id = ${owner}::int)
          RETURNING client_id, url, disabled_reason AS reason, hold_path_only AS path_only`;
    if (!gone) return false;
    if (gone.reason === OPERATOR) {
      // A target already held (by an older subscription) keeps that subscription's id.
      await tx.webhookHeldTarget.createMany({
        data: [
          {
            client_id: gone.client_id,
            target: holdKey(gone.url, gone.path_only),
            path_only: gone.path_only,
            subscription_id: id,
          },
        ],
        skipDuplicates: true,
      });
    }
    return true;
  });
}

/**
 * The operator's enable of a subscription its client deleted: its target is no longer held.
 * Returns the targets released (none when the id held nothing).
 */
export async function releaseHeld(
  db: ReadModelClient,
  id: number,
): Promise<{ client_id: number; target: string }[]> {
  const held = await db.webhookHeldTarget.findMany({
    where: { subscription_id: id },
    select: { client_id: true, target: true },
  });
  await db.webhookHeldTarget.deleteMany({ where: { subscription_id: id } });
  return held;
}

/**
 * The one update (where, data) that enables or disables subscription `id` for `owner`; `at` is
 * a disable's time, `pathOnly` an operator's hold of the URL's path alone; an enable records the
 * `credentials` it stands on. A client's enable leaves out one the operator disabled, and
 * `heldByOperator` says it did.
 */
export function enabledChange(
  owner: Owner,
  id: number,
  change: {
    enabled: boolean;
    reason: DisabledReason;
    at: Date;
    credentials: Credentials | null;
    pathOnly?: boolean;
  },
) {
  const heldByOperator = change.enabled && owner !== null;
  return {
    heldByOperator,
    where: {
      ...owned(owner, id),
      ...(heldByOperator
        ? { OR: [{ disabled_reason: null }, { disabled_reason: { not: OPERATOR } }] }
        : {}),
    },
    data: change.enabled
      ? {
          enabled: true,
          disabled_reason: null,
          disabled_at: null,
          failing_since: null,
          ...(change.credentials ? credentialsColumns(change.credentials) : {}),
          hold_path_only: false,
        }
      : {
          enabled: false,
          disabled_reason: change.reason,
          disabled_at: change.at,
          hold_path_only: change.pathOnly === true,
        },
  };
}

/**
 * Enabled again; its pending events are tried at once, on a fresh schedule. A client cannot
 * undo an operator's disable: that is the operator's kill switch (docs/operations/incidents.md,
 * "Webhook runbook"). An enable stands on `credentials`: its partner's, or (the operator's, a
 * tool's) the client's of now.
 */
export async function setEnabled(
  db: ReadModelClient,
  owner: Owner,
  id: number,
  change: {
    enabled: boolean;
    reason: DisabledReason;
    credentials?: Credentials | undefined;
    pathOnly?: boolean;
  },
) {
  const { enabled, reason } = change;
  return db.$transaction(async (tx) => {
    const credentials = enabled ? (change.credentials ?? (await clientCredentials(tx, id))) : null;
    if (enabled && credentials === null) return null;
    // One statement decides, so an operator's disable landing meanwhile is never undone.
    const { heldByOperator, where, data } = enabledChange(owner, id, {
      enabled,
      reason,
      at: new Date(),
      credentials,
      pathOnly: change.pathOnly,
    });
    const { count } = await tx.webhookSubscription.updateMany({ where, data });
    if (count === 0) {
      if (heldByOperator && (await tx.webhookSubscription.count({ where: owned(owner, id) })))
        throw insufficientScope(
          'Bu abonelik operatör tarafından devre dışı bırakıldı; yalnızca operatör yeniden etkinleştirebilir.',
        );
      return null;
    }
    if (enabled && owner === null) {
      await tx.webhookHeldTarget.deleteMany({ where: { subscription_id: id } });
    }
    if (enabled) {
      await tx.webhookEvent.updateMany({
        where: { subscription_id: id, status: 'pending' },
        data: { attempts: 0, next_attempt_at: dueAtOnce() },
      });
    }
    return tx.webhookSubscription.findUniqueOrThrow({ where: { id }, select: PUBLIC_FIELDS });
  });
}

/** The credentials of now of the client of subscription `id`; null when there is no such one. */
async function clientCredentials(tx: Transaction, id: number): Promise<Credentials | null> {
  const [client] = await tx.$queryRaw<Credentials[]>`
      SELECT c.token_generation AS generation, c.secret_version AS "secretVersion"
        FROM webhook_subscriptions s JOIN api_clients c ON c.id = s.client_id
       WHERE s.id = ${id}`;
  return client ?? null;
}
