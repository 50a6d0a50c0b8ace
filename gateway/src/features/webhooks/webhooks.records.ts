// The subscription rows as the webhook service's parts read and answer them (webhooks.service.ts):
// the fields shown, an owner's reach (a client its own, an operator every client's), the reads,
// and what the parts are given.
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import type { WebhookSecrets } from '#api/webhooks/secrets.js';
import type { TargetRules } from '#api/webhooks/targets.js';
import type { DeliveryOutcome } from '#api/webhooks/vocabulary.js';

export type Owner = number | null;

export const PUBLIC_FIELDS = {
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
export interface ServiceDeps {
  db: ReadModelClient;
  limits: WebhookLimits;
  secrets: WebhookSecrets;
  targets: TargetRules;
}

/** The subscription `id` as `owner` may reach it: a client its own only, an operator any. */
export const owned = (owner: Owner, id: number) => ({
  id,
  ...(owner === null ? {} : { client_id: owner }),
});

/** The subscription if the owner may reach it; null otherwise (a 404 for clients). */
export const findSubscription = (db: ReadModelClient, owner: Owner, id: number) =>
  db.webhookSubscription.findFirst({ where: owned(owner, id), select: PUBLIC_FIELDS });

export function listSubscriptions(
  db: ReadModelClient,
  owner: Owner,
  options: { clientKey?: string },
) {
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
 * Tries of one subscription, newest first, of one outcome when asked; the caller has found it
 * for its owner.
 */
export const listAttempts = (
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
