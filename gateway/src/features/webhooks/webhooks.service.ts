// Webhook subscriptions as their owner and operators manage them (decision 0012). Every method
// that serves a client takes its id first and finds only that client's subscriptions, so a
// client never reaches another's; operators (the CLI) pass `null` and reach all. The service is
// made here; its parts are beside it: the rows and reads (webhooks.records.ts), subscribing and
// changing (webhooks.subscribe.ts), enabling, disabling and deleting (webhooks.enabling.ts),
// replays, re-encryption, test events and figures (webhooks.replay.ts, .reencrypt.ts,
// .test-event.ts, .figures.ts).
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import {
  recordOperatorAction,
  type Operator,
  type OperatorAction,
} from '../operators/operator-audit.js';
import { newWebhookSecret, PREVIOUS_SECRET_MS, webhookSecrets } from '#api/webhooks/secrets.js';
import type { DeliveryOutcome } from '#api/webhooks/vocabulary.js';
import { deliveryFigures } from './webhooks.figures.js';
import { reencryptSecrets } from './webhooks.reencrypt.js';
import { replayEvents } from './webhooks.replay.js';
import { releaseHeld, removeSubscription, setEnabled } from './webhooks.enabling.js';
import {
  findSubscription,
  listAttempts,
  listSubscriptions,
  owned,
  PUBLIC_FIELDS,
  type Owner,
  type ServiceDeps,
  type WebhookLimits,
} from './webhooks.records.js';
import { OPERATOR, type Caller } from './webhooks.rules.js';
import {
  createSubscription,
  subscribe,
  updateSubscription,
  type SubscriptionInput,
  type SubscriptionPatch,
  type SubscriptionRequest,
} from './webhooks.subscribe.js';
import { sendTestEvent, type TestOutcome } from './webhooks.test-event.js';

export type { DeliveryFigures } from './webhooks.figures.js';
export type { Reencrypted } from './webhooks.reencrypt.js';
export { OPERATOR, type Caller } from './webhooks.rules.js';
export type { TestOutcome } from './webhooks.test-event.js';

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
 * Secrets are sealed under SECRETS_KEY as they are stored (api/webhooks/secrets.ts); the gateway
 * opens one only to sign a test event (webhooks.test-event.ts). `dnsServers`: name servers for
 * targets' names instead of the system's (tests). Each method is one of the parts' functions,
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
