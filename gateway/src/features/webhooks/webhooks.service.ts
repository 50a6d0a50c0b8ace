// Webhook subscriptions as their owner and operators manage them (decision 0012). Every method
// that serves a client takes its id first and finds only that client's subscriptions, so a
// client never reaches another's; operators (the CLI) pass `null` and reach all.
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import { presentOf } from '#api/changes/cursor.js';
import { dueAtOnce } from '#api/webhooks/overdue.js';
import {
  recordOperatorAction,
  type Operator,
  type OperatorAction,
} from '../operators/operator-audit.js';
import { holdKey, targetKey } from '#api/webhooks/targets.js';
import { credentialsColumns, type Credentials } from '#api/webhooks/credentials.js';
import {
  newWebhookSecret,
  PREVIOUS_SECRET_MS,
  webhookSecrets,
  type WebhookSecrets,
} from '#api/webhooks/secrets.js';
import type { TargetRules } from '#api/webhooks/targets.js';
import type { DeliveryOutcome, DisabledReason } from '#api/webhooks/vocabulary.js';
import { insufficientScope, validationError } from '../../http/errors.js';
import { deliveryFigures } from './webhooks.figures.js';
import { reencryptSecrets } from './webhooks.reencrypt.js';
import { replayEvents } from './webhooks.replay.js';
import {
  checkTarget,
  holdsTarget,
  OPERATOR,
  subscribedTypes,
  targetHeld,
  type Caller,
  type Transaction,
} from './webhooks.rules.js';
import { sendTestEvent, type TestOutcome } from './webhooks.test-event.js';

export type { DeliveryFigures } from './webhooks.figures.js';
export type { Reencrypted } from './webhooks.reencrypt.js';
export { OPERATOR, type Caller } from './webhooks.rules.js';
export type { TestOutcome } from './webhooks.test-event.js';

export type Owner = number | null;

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

const PUBLIC_FIELDS = {
  id: true,
  client_id: true,
  url: true,
  types: true,
  description: true,
  enabled: true,
  disabled_reason: true,
  disabled_at: true,
  created_at: true,
} as const;

/**
 * WEBHOOK_MAX_SUBSCRIPTIONS_PER_CLIENT, WEBHOOK_REPLAY_MAX, WEBHOOK_REPLAYS_PER_HOUR,
 * WEBHOOK_REPLAY_EVENTS_PER_HOUR, and the target rules and timeout deliveries follow
 * (common/config.ts).
 */
export type WebhookLimits = Pick<
  Config['webhooks'],
  | 'maxSubscriptionsPerClient'
  | 'replayMax'
  | 'replaysPerHour'
  | 'replayEventsPerHour'
  | 'allowPrivateTargets'
  | 'allowHttp'
  | 'timeoutMs'
>;

/** What the service's parts work with, made once by createWebhookService. */
interface ServiceDeps {
  db: ReadModelClient;
  limits: WebhookLimits;
  secrets: WebhookSecrets;
  targets: TargetRules;
}

/** The subscription `id` as `owner` may reach it: a client its own only, an operator any. */
const owned = (owner: Owner, id: number) => ({
  id,
  ...(owner === null ? {} : { client_id: owner }),
});

/** The subscription if the owner may reach it; null otherwise (a 404 for clients). */
const findSubscription = (db: ReadModelClient, owner: Owner, id: number) =>
  db.webhookSubscription.findFirst({ where: owned(owner, id), select: PUBLIC_FIELDS });

/**
 * Stores a subscription whose types and target are already checked (subscribe checks a
 * client's). New subscriptions start at the feed's present: their events are the changes
 * after. A target the operator holds is 403. At most WEBHOOK_MAX_SUBSCRIPTIONS_PER_CLIENT per
 * client. It stands on `credentials`; left out (tools and tests that make subscriptions
 * directly), on the client's of now.
 */
async function createSubscription(
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
async function subscribe(deps: ServiceDeps, caller: Caller, request: SubscriptionRequest) {
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
async function updateSubscription(
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

function listSubscriptions(db: ReadModelClient, owner: Owner, options: { clientKey?: string }) {
  return db.webhookSubscription.findMany({
    where: {
      ...(owner === null ? {} : { client_id: owner }),
      ...(options.clientKey ? { client: { client_key: options.clientKey } } : {}),
    },
    orderBy: { id: 'asc' },
    select: { ...PUBLIC_FIELDS, client: { select: { client_key: true } } },
  });
}

/**
 * Deleted with its events. One the operator disabled leaves its target (origin, or path with
 * `--path-only`) held for its client (webhook_held_targets), so that subscribing again does not
 * undo the operator's disable.
 */
async function removeSubscription(db: ReadModelClient, owner: Owner, id: number): Promise<boolean> {
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
async function releaseHeld(
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

/** A new secret; the old one keeps signing beside it for 24 hours. */
async function rotateSecret({ db, secrets }: ServiceDeps, owner: Owner, id: number) {
  const current = await db.webhookSubscription.findFirst({
    where: owned(owner, id),
    select: { secret: true },
  });
  if (!current) return null;
  const secret = newWebhookSecret();
  const updated = await db.webhookSubscription.update({
    where: { id },
    data: {
      secret: secrets.seal(secret),
      // Moved as it is stored: the gateway never needs to open a secret.
      previous_secret: current.secret,
      previous_secret_until: new Date(Date.now() + PREVIOUS_SECRET_MS),
    },
    select: PUBLIC_FIELDS,
  });
  return { ...updated, secret };
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
 * undo an operator's disable: that is the operator's kill switch (docs/operations.md). An enable
 * stands on `credentials`: its partner's, or (the operator's, a tool's) the client's of now.
 */
async function setEnabled(
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

/**
 * Tries of one subscription, newest first, of one outcome when asked; the caller has found it
 * for its owner.
 */
const listAttempts = (
  db: ReadModelClient,
  id: number,
  window: { skip: number; take: number },
  outcome?: DeliveryOutcome,
) =>
  db.webhookAttempt.findMany({
    where: { subscription_id: id, ...(outcome ? { outcome } : {}) },
    // The index's order (subscription, attempted_at): a page reads its own rows only.
    orderBy: [{ attempted_at: 'desc' }, { id: 'desc' }],
    skip: window.skip,
    take: window.take,
    include: { event: { select: { message_id: true, event_type: true } } },
  });

/**
 * Secrets are sealed under SECRETS_KEY as they are stored (api/webhooks/secrets.ts); the gateway
 * opens one only to sign a test event (webhooks.test-event.ts). `dnsServers`: name servers for
 * targets' names instead of the system's (tests). Each method is one of the functions above,
 * given what it works with.
 */
export function createWebhookService(
  db: ReadModelClient,
  config: { webhooks: WebhookLimits; secrets: Pick<Config['secrets'], 'keys'> },
  options: { dnsServers?: readonly string[] | undefined } = {},
) {
  const limits = config.webhooks;
  const deps: ServiceDeps = {
    db,
    limits,
    secrets: webhookSecrets(config.secrets.keys),
    targets: {
      allowPrivate: limits.allowPrivateTargets,
      allowHttp: limits.allowHttp,
      dnsServers: options.dnsServers,
    },
  };
  const service = {
    find: (owner: Owner, id: number) => findSubscription(db, owner, id),
    create: (owner: number, input: SubscriptionInput) => createSubscription(deps, owner, input),
    figures: (id: number) => deliveryFigures(db, id),
    subscribe: (caller: Caller, request: SubscriptionRequest) => subscribe(deps, caller, request),
    update: (caller: Caller, id: number, patch: SubscriptionPatch) =>
      updateSubscription(deps, caller, id, patch),

    /**
     * A signed `webhook.test` event sent at once, its outcome answered and not recorded; at most
     * TESTS_PER_MINUTE per subscription. Null when the caller has no such subscription.
     */
    sendTest: (caller: Caller, id: number): Promise<TestOutcome | null> =>
      sendTestEvent(
        { db, secrets: deps.secrets, targets: deps.targets, timeoutMs: limits.timeoutMs },
        caller.clientId,
        id,
      ),

    list: (owner: Owner, options: { clientKey?: string } = {}) =>
      listSubscriptions(db, owner, options),
    remove: (owner: Owner, id: number) => removeSubscription(db, owner, id),
    releaseHeld: (id: number) => releaseHeld(db, id),
    rotateSecret: (owner: Owner, id: number) => rotateSecret(deps, owner, id),
    setEnabled: (
      owner: Owner,
      id: number,
      enabled: boolean,
      reason = OPERATOR,
      options: { pathOnly?: boolean } = {},
    ) => setEnabled(db, owner, id, { enabled, reason, ...options }),
    /** How far an operator's disable holds: the subscription's origin, or its path alone. */
    setHoldScope: (id: number, pathOnly: boolean) =>
      db.webhookSubscription.update({
        where: { id },
        data: { hold_path_only: pathOnly },
        select: PUBLIC_FIELDS,
      }),
    /** The partner's enable (POST /webhooks/{id}/enable, the portal), on its credentials. */
    enable: (caller: Caller, id: number) =>
      // The reason is a disable's; an enable clears it.
      setEnabled(db, caller.clientId, id, {
        enabled: true,
        reason: OPERATOR,
        credentials: caller.credentials,
      }),
    replay: (owner: Owner, id: number, since: Date, failedOnly: boolean) =>
      replayEvents(deps, owner, id, since, failedOnly),
    reencryptSecrets: () => reencryptSecrets(deps),
    attempts: (id: number, window: { skip: number; take: number }, outcome?: DeliveryOutcome) =>
      listAttempts(db, id, window, outcome),
    attemptCount: (id: number, outcome?: DeliveryOutcome) =>
      db.webhookAttempt.count({ where: { subscription_id: id, ...(outcome ? { outcome } : {}) } }),
  };
  return { ...service, asPartner: (partner: Partner) => partnerActions(service, db, partner) };
}

export type WebhookService = ReturnType<typeof createWebhookService>;

/** A partner acting on its own subscriptions, through the API or its portal. */
export interface Partner extends Caller {
  clientKey: string;
  /** Who acts and from where, as the operator audit records it. */
  actor: Operator;
}

/**
 * The partner's actions on its subscriptions, each recorded in the operator audit once done
 * (`partner KEY`, through the API or the portal, from its address): what a leaked credential did
 * can be read back. Lists and reads are not recorded.
 */
function partnerActions(
  service: Omit<WebhookService, 'asPartner'>,
  db: ReadModelClient,
  partner: Partner,
) {
  const { clientId } = partner;
  /** `result`, after its record when it did something (null and false: no such subscription). */
  async function recorded<T>(action: OperatorAction, id: number, result: T): Promise<T> {
    if (result !== null && result !== false) {
      await recordOperatorAction(db, partner.actor, action, {
        clientKey: partner.clientKey,
        target: `subscription ${id}`,
      });
    }
    return result;
  }
  return {
    subscribe: async (request: SubscriptionRequest) => {
      const created = await service.subscribe(partner, request);
      return recorded('webhooks.create', created.id, created);
    },
    update: async (id: number, patch: SubscriptionPatch) =>
      recorded('webhooks.update', id, await service.update(partner, id, patch)),
    sendTest: async (id: number) =>
      recorded('webhooks.test', id, await service.sendTest(partner, id)),
    remove: async (id: number) =>
      recorded('webhooks.delete', id, await service.remove(clientId, id)),
    rotateSecret: async (id: number) =>
      recorded('webhooks.rotate-secret', id, await service.rotateSecret(clientId, id)),
    enable: async (id: number) =>
      recorded('webhooks.enable', id, await service.enable(partner, id)),
    replay: async (id: number, since: Date, failedOnly: boolean) =>
      recorded('webhooks.replay', id, await service.replay(clientId, id, since, failedOnly)),
  };
}
