// A subscription made or changed by its client (POST and PATCH /webhooks, the portal), or made
// directly by tools: its types follow the caller's scopes and its target the delivery rules
// (webhooks.rules.ts); a target the operator holds, or a subscription the operator disabled, stays
// the operator's to release (403).
import { presentOf } from '#api/changes/cursor.js';
import { targetKey } from '#api/webhooks/targets.js';
import { credentialsColumns, type Credentials } from '#api/webhooks/credentials.js';
import { newWebhookSecret } from '#api/webhooks/secrets.js';
import { insufficientScope, validationError } from '../../http/errors.js';
import { PUBLIC_FIELDS, type ServiceDeps } from './webhooks.records.js';
import {
  checkTarget,
  holdsTarget,
  OPERATOR,
  subscribedTypes,
  targetHeld,
  type Caller,
} from './webhooks.rules.js';

const subscriptionHeld = () =>
  insufficientScope(
    'Bu abonelik operatör tarafından devre dışı bırakıldı; yalnızca operatör değiştirebilir.',
  );

/** A new subscription as its client asks for it (POST /webhooks, the portal). */
export interface SubscriptionRequest {
  url: string;
  /** Feed type names; by default every type the caller's scopes read. */
  types?: readonly string[] | undefined;
  description?: string | null | undefined;
}

/** A subscription as stored. */
export interface SubscriptionInput {
  url: string;
  types: string[];
  description: string | null;
}

/** A change to a subscription (PATCH /webhooks/{id}, the portal): what is left out stays. */
export interface SubscriptionPatch {
  url?: string | undefined;
  types?: readonly string[] | undefined;
  /** null clears it. */
  description?: string | null | undefined;
}

/**
 * Stores a subscription whose types and target are already checked (subscribe checks a
 * client's). New subscriptions start at the feed's present: their events are the changes
 * after. A target the operator holds is 403. At most WEBHOOK_MAX_SUBSCRIPTIONS_PER_CLIENT per
 * client. It stands on `credentials`; left out (tools and tests that make subscriptions
 * directly), on the client's of now.
 */
export async function createSubscription(
  { db, limits, secrets }: ServiceDeps,
  owner: number,
  input: SubscriptionInput,
  credentials?: Credentials,
) {
  const [row] = await db.$queryRaw<{ xmin: string }[]>`
      SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`;
  const start = presentOf(BigInt(row!.xmin));
  const secret = newWebhookSecret();
  const max = limits.maxSubscriptionsPerClient;
  const created = await db.$transaction(async (tx) => {
    // One client's creates wait for each other here, so two at once cannot both see room.
    // NO KEY UPDATE: token rows referring to the client are not held back.
    const [client] = await tx.$queryRaw<{ generation: number; secret_version: number }[]>`
        SELECT token_generation AS generation, secret_version FROM api_clients
         WHERE id = ${owner} FOR NO KEY UPDATE`;
    if (await holdsTarget(tx, owner, input.url)) throw targetHeld();
    const held = await tx.webhookSubscription.count({ where: { client_id: owner } });
    if (held >= max) {
      throw validationError(
        [{ field: 'subscriptions', message: `${held} abonelik var; en fazla ${max}.` }],
        `Bir istemci en fazla ${max} webhook aboneliği oluşturabilir; kullanılmayanları silin.`,
      );
    }
    return tx.webhookSubscription.create({
      data: {
        client_id: owner,
        url: input.url,
        types: input.types,
        description: input.description,
        secret: secrets.seal(secret),
        ...credentialsColumns(
          credentials ?? { generation: client!.generation, secretVersion: client!.secret_version },
        ),
        feed_xid: start.xid,
        feed_kind: start.kind,
        feed_type: start.type,
        feed_id: start.id,
      },
      select: PUBLIC_FIELDS,
    });
  });
  return { ...created, secret };
}

/**
 * A client's new subscription (POST /webhooks, the portal): types follow the caller's scopes,
 * the target the delivery rules (webhooks.rules.ts), then as create.
 */
export async function subscribe(deps: ServiceDeps, caller: Caller, request: SubscriptionRequest) {
  const types = subscribedTypes(request.types, caller.scopes);
  await checkTarget(request.url, deps.targets);
  return createSubscription(
    deps,
    caller.clientId,
    { url: request.url, types, description: request.description ?? null },
    caller.credentials,
  );
}

/** Whether the patch points the subscription at another target (targetKey) than `currentUrl`. */
export function movesTarget(patch: SubscriptionPatch, currentUrl: string): boolean {
  return patch.url !== undefined && targetKey(patch.url) !== targetKey(currentUrl);
}

/** The stored fields a patch sets, its types already checked: what it leaves out stays. */
export function patchedFields(patch: SubscriptionPatch, types: string[] | undefined) {
  return {
    ...(patch.url !== undefined ? { url: patch.url } : {}),
    ...(types ? { types } : {}),
    ...(patch.description !== undefined ? { description: patch.description } : {}),
  };
}

/**
 * Changes the URL, types or description, checked as subscribe checks them; the subscription
 * keeps its place in the feed, and its pending events go to the new URL. Its client cannot
 * move a subscription the operator disabled, nor point one at a target the operator holds
 * (403). A new URL stands on the caller's credentials. Null when the caller has no such
 * subscription.
 */
export async function updateSubscription(
  { db, targets }: ServiceDeps,
  caller: Caller,
  id: number,
  patch: SubscriptionPatch,
) {
  const owner = caller.clientId;
  const types = patch.types && subscribedTypes(patch.types, caller.scopes);
  if (patch.url !== undefined) await checkTarget(patch.url, targets);
  return db.$transaction(async (tx) => {
    // Ordered with the operator's disable, so a move never escapes a hold landing meanwhile. NO
    // KEY: the lock an update takes, which a dispatcher's page (KEY SHARE) does not hold up.
    const [current] = await tx.$queryRaw<{ url: string; reason: string | null }[]>`
          SELECT url, disabled_reason AS reason FROM webhook_subscriptions
           WHERE id = ${id} AND client_id = ${owner} FOR NO KEY UPDATE`;
    if (!current) return null;
    const moved = movesTarget(patch, current.url);
    if (moved && current.reason === OPERATOR) throw subscriptionHeld();
    if (moved && (await holdsTarget(tx, owner, patch.url!))) throw targetHeld();
    const repointed = patch.url !== undefined && patch.url !== current.url;
    return tx.webhookSubscription.update({
      where: { id },
      data: {
        ...patchedFields(patch, types),
        ...(repointed ? credentialsColumns(caller.credentials) : {}),
      },
      select: PUBLIC_FIELDS,
    });
  });
}
