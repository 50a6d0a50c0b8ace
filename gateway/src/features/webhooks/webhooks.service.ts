// Webhook subscriptions as their owner and operators manage them (decision 0012). Every method
// that serves a client takes its id first and finds only that client's subscriptions, so a
// client never reaches another's; operators (the CLI) pass `null` and reach all.
import type { Config } from '../../../../common/config.js';
import type { ReadModelClient } from '../../../../common/databases.js';
import { presentOf } from '../../../../api/changes/cursor.js';
import { dueAtOnce } from '../../../../api/webhooks/overdue.js';
import { targetKey } from '../../../../api/webhooks/targets.js';
import {
  newWebhookSecret,
  PREVIOUS_SECRET_MS,
  webhookSecrets,
} from '../../../../api/webhooks/secrets.js';
import type { TargetRules } from '../../../../api/webhooks/targets.js';
import type { DeliveryOutcome } from '../../../../api/webhooks/vocabulary.js';
import { AppError, insufficientScope, validationError } from '../../http/errors.js';
import { deliveryFigures } from './webhooks.figures.js';
import {
  checkTarget,
  holdsTarget,
  OPERATOR,
  subscribedTypes,
  targetHeld,
  type Caller,
} from './webhooks.rules.js';
import { sendTestEvent, type TestOutcome } from './webhooks.test-event.js';

export type { DeliveryFigures } from './webhooks.figures.js';
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
 * WEBHOOK_MAX_SUBSCRIPTIONS_PER_CLIENT, WEBHOOK_REPLAY_MAX, WEBHOOK_REPLAYS_PER_HOUR, and the
 * target rules and timeout deliveries follow (common/config.ts).
 */
export type WebhookLimits = Pick<
  Config['webhooks'],
  | 'maxSubscriptionsPerClient'
  | 'replayMax'
  | 'replaysPerHour'
  | 'allowPrivateTargets'
  | 'allowHttp'
  | 'timeoutMs'
>;

const tooManyReplays = (perHour: number, retryAfter: number) =>
  new AppError({
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: `Bir abonelik saatte en fazla ${perHour} kez yeniden gönderim isteyebilir; lütfen daha sonra tekrar deneyin.`,
    retryAfter,
  });

interface ReplayCount {
  matched: number;
  replayed: number;
}

/** What reencryptSecrets did: subscriptions whose secrets it sealed again, or could not open. */
export interface Reencrypted {
  reencrypted: number;
  unchanged: number;
  unreadable: { id: number; reason: string }[];
}

/**
 * Secrets are sealed under SECRETS_KEY as they are stored (api/webhooks/secrets.ts); the gateway
 * opens one only to sign a test event (webhooks.test-event.ts). `dnsServers`: name servers for
 * targets' names instead of the system's (tests).
 */
export function createWebhookService(
  db: ReadModelClient,
  config: { webhooks: WebhookLimits; secrets: Pick<Config['secrets'], 'keys'> },
  options: { dnsServers?: readonly string[] | undefined } = {},
) {
  const limits = config.webhooks;
  const secrets = webhookSecrets(config.secrets.keys);
  const targets: TargetRules = {
    allowPrivate: limits.allowPrivateTargets,
    allowHttp: limits.allowHttp,
    dnsServers: options.dnsServers,
  };
  const owned = (owner: Owner, id: number) => ({
    id,
    ...(owner === null ? {} : { client_id: owner }),
  });

  /** The subscription if the owner may reach it; null otherwise (a 404 for clients). */
  const find = (owner: Owner, id: number) =>
    db.webhookSubscription.findFirst({ where: owned(owner, id), select: PUBLIC_FIELDS });

  /**
   * Stores a subscription whose types and target are already checked (subscribe checks a
   * client's). New subscriptions start at the feed's present: their events are the changes
   * after. A target the operator holds is 403. At most WEBHOOK_MAX_SUBSCRIPTIONS_PER_CLIENT per
   * client.
   */
  async function create(owner: number, input: SubscriptionInput) {
    const [row] = await db.$queryRaw<{ xmin: string }[]>`
      SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`;
    const start = presentOf(BigInt(row!.xmin));
    const secret = newWebhookSecret();
    const max = limits.maxSubscriptionsPerClient;
    const created = await db.$transaction(async (tx) => {
      // One client's creates wait for each other here, so two at once cannot both see room.
      // NO KEY UPDATE: token rows referring to the client are not held back.
      await tx.$queryRaw`SELECT 1 FROM api_clients WHERE id = ${owner} FOR NO KEY UPDATE`;
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

  return {
    find,
    create,
    figures: (id: number) => deliveryFigures(db, id),

    /**
     * A client's new subscription (POST /webhooks, the portal): types follow the caller's scopes,
     * the target the delivery rules (webhooks.rules.ts), then as create.
     */
    async subscribe(caller: Caller, request: SubscriptionRequest) {
      const types = subscribedTypes(request.types, caller.scopes);
      await checkTarget(request.url, targets);
      return create(caller.clientId, {
        url: request.url,
        types,
        description: request.description ?? null,
      });
    },

    /**
     * Changes the URL, types or description, checked as subscribe checks them; the subscription
     * keeps its place in the feed, and its pending events go to the new URL. Its client cannot
     * move a subscription the operator disabled, nor point one at a target the operator holds
     * (403). Null when the caller has no such subscription.
     */
    async update(caller: Caller, id: number, patch: SubscriptionPatch) {
      const owner = caller.clientId;
      const types = patch.types && subscribedTypes(patch.types, caller.scopes);
      if (patch.url !== undefined) await checkTarget(patch.url, targets);
      return db.$transaction(async (tx) => {
        // Ordered with the operator's disable, so a move never escapes a hold landing meanwhile.
        const [current] = await tx.$queryRaw<{ url: string; reason: string | null }[]>`
          SELECT url, disabled_reason AS reason FROM webhook_subscriptions
           WHERE id = ${id} AND client_id = ${owner} FOR UPDATE`;
        if (!current) return null;
        const moved = patch.url !== undefined && targetKey(patch.url) !== targetKey(current.url);
        if (moved && current.reason === OPERATOR) throw subscriptionHeld();
        if (moved && (await holdsTarget(tx, owner, patch.url!))) throw targetHeld();
        return tx.webhookSubscription.update({
          where: { id },
          data: {
            ...(patch.url !== undefined ? { url: patch.url } : {}),
            ...(types ? { types } : {}),
            ...(patch.description !== undefined ? { description: patch.description } : {}),
          },
          select: PUBLIC_FIELDS,
        });
      });
    },

    /**
     * A signed `webhook.test` event sent at once, its outcome answered and not recorded; at most
     * TESTS_PER_MINUTE per subscription. Null when the caller has no such subscription.
     */
    sendTest(caller: Caller, id: number): Promise<TestOutcome | null> {
      return sendTestEvent(
        { db, secrets, targets, timeoutMs: limits.timeoutMs },
        caller.clientId,
        id,
      );
    },

    list(owner: Owner, options: { clientKey?: string } = {}) {
      return db.webhookSubscription.findMany({
        where: {
          ...(owner === null ? {} : { client_id: owner }),
          ...(options.clientKey ? { client: { client_key: options.clientKey } } : {}),
        },
        orderBy: { id: 'asc' },
        select: { ...PUBLIC_FIELDS, client: { select: { client_key: true } } },
      });
    },

    /**
     * Deleted with its events. One the operator disabled leaves its target held for its client
     * (webhook_held_targets), so that subscribing again does not undo the operator's disable.
     */
    async remove(owner: Owner, id: number): Promise<boolean> {
      return db.$transaction(async (tx) => {
        const [gone] = await tx.$queryRaw<{ client_id: number; url: string; reason: string }[]>`
          DELETE FROM webhook_subscriptions
           WHERE id = ${id} AND (${owner}::int IS NULL OR client_id = ${owner}::int)
          RETURNING client_id, url, disabled_reason AS reason`;
        if (!gone) return false;
        if (gone.reason === OPERATOR) {
          // A target already held (by an older subscription) keeps that subscription's id.
          await tx.webhookHeldTarget.createMany({
            data: [{ client_id: gone.client_id, target: targetKey(gone.url), subscription_id: id }],
            skipDuplicates: true,
          });
        }
        return true;
      });
    },

    /**
     * The operator's enable of a subscription its client deleted: its target is no longer held.
     * Returns the targets released (none when the id held nothing).
     */
    async releaseHeld(id: number): Promise<{ client_id: number; target: string }[]> {
      const held = await db.webhookHeldTarget.findMany({
        where: { subscription_id: id },
        select: { client_id: true, target: true },
      });
      await db.webhookHeldTarget.deleteMany({ where: { subscription_id: id } });
      return held;
    },

    /** A new secret; the old one keeps signing beside it for 24 hours. */
    async rotateSecret(owner: Owner, id: number) {
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
    },

    /**
     * Enabled again; its pending events are tried at once, on a fresh schedule. A client cannot
     * undo an operator's disable: that is the operator's kill switch (docs/operations.md).
     */
    async setEnabled(owner: Owner, id: number, enabled: boolean, reason = OPERATOR) {
      return db.$transaction(async (tx) => {
        // One statement decides, so an operator's disable landing meanwhile is never undone.
        const heldByOperator = enabled && owner !== null;
        const { count } = await tx.webhookSubscription.updateMany({
          where: {
            ...owned(owner, id),
            ...(heldByOperator
              ? { OR: [{ disabled_reason: null }, { disabled_reason: { not: OPERATOR } }] }
              : {}),
          },
          data: enabled
            ? { enabled: true, disabled_reason: null, disabled_at: null, failing_since: null }
            : { enabled: false, disabled_reason: reason, disabled_at: new Date() },
        });
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
    },

    /**
     * The events recorded since `since` sent again, with their own webhook-id: the failed ones,
     * or every one that is not pending. Returns how many. More than WEBHOOK_REPLAY_MAX is refused
     * whole: one statement counts them (up to one past the limit) and sets back none or all.
     */
    async replay(owner: Owner, id: number, since: Date, failedOnly: boolean) {
      // Counted first, in one statement, so replays at once cannot all see room; every replay
      // asked for counts, a refused one too.
      const [counted] = await db.$queryRaw<{ replays: number; retry_after: number }[]>`
        UPDATE webhook_subscriptions
           SET replays_in_window = CASE WHEN replay_window_at > now() - interval '1 hour'
                                        THEN replays_in_window + 1 ELSE 1 END,
               replay_window_at = CASE WHEN replay_window_at > now() - interval '1 hour'
                                       THEN replay_window_at ELSE now() END
         WHERE id = ${id} AND (${owner}::int IS NULL OR client_id = ${owner}::int)
        RETURNING replays_in_window AS replays,
                  ceil(extract(epoch FROM replay_window_at + interval '1 hour' - now()))::int
                    AS retry_after`;
      if (!counted) return null;
      if (counted.replays > limits.replaysPerHour) {
        throw tooManyReplays(limits.replaysPerHour, Math.max(1, counted.retry_after));
      }
      const max = limits.replayMax;
      const [count] = await db.$queryRaw<ReplayCount[]>`
        WITH chosen AS MATERIALIZED (
          SELECT id FROM webhook_events
           WHERE subscription_id = ${id} AND created_at >= ${since}
             AND (status = 'failed' OR (NOT ${failedOnly} AND status = 'delivered'))
           LIMIT ${max + 1}
             FOR UPDATE),
        counted AS (SELECT count(*)::int AS n FROM chosen),
        replayed AS (
          UPDATE webhook_events e
             SET status = 'pending', attempts = 0, next_attempt_at = ${dueAtOnce()},
                 delivered_at = NULL
            FROM counted
           WHERE e.id IN (SELECT id FROM chosen) AND counted.n <= ${max}
          RETURNING 1)
        SELECT (SELECT n FROM counted) AS matched, (SELECT count(*)::int FROM replayed) AS replayed`;
      if (count!.matched > max) {
        throw validationError(
          [{ field: 'since', message: `en fazla ${max} olay; daha yakın bir zaman seçin.` }],
          `Bir istekle en fazla ${max} olay yeniden gönderilebilir; daha yakın bir since seçin.`,
        );
      }
      return count!.replayed;
    },

    /**
     * Every stored secret (current and previous) sealed under SECRETS_KEY's first key, those
     * stored in plain text included. A row rotated meanwhile is read again, never overwritten.
     */
    async reencryptSecrets(): Promise<Reencrypted> {
      const done: Reencrypted = { reencrypted: 0, unchanged: 0, unreadable: [] };
      const ids = await db.webhookSubscription.findMany({
        select: { id: true },
        orderBy: { id: 'asc' },
      });
      for (const { id } of ids) {
        for (;;) {
          const row = await db.webhookSubscription.findUnique({
            where: { id },
            select: { secret: true, previous_secret: true },
          });
          if (!row) break;
          let sealed: { secret: string; previous_secret: string | null };
          try {
            sealed = {
              secret: secrets.resealed(row.secret),
              previous_secret: row.previous_secret && secrets.resealed(row.previous_secret),
            };
          } catch (error) {
            done.unreadable.push({ id, reason: (error as Error).message });
            break;
          }
          if (sealed.secret === row.secret && sealed.previous_secret === row.previous_secret) {
            done.unchanged += 1;
            break;
          }
          const { count } = await db.webhookSubscription.updateMany({
            where: { id, ...row },
            data: sealed,
          });
          if (count > 0) {
            done.reencrypted += 1;
            break;
          }
        }
      }
      return done;
    },

    /**
     * Tries of one subscription, newest first, of one outcome when asked; the caller has found it
     * for its owner.
     */
    attempts: (id: number, window: { skip: number; take: number }, outcome?: DeliveryOutcome) =>
      db.webhookAttempt.findMany({
        where: { subscription_id: id, ...(outcome ? { outcome } : {}) },
        // The index's order (subscription, attempted_at): a page reads its own rows only.
        orderBy: [{ attempted_at: 'desc' }, { id: 'desc' }],
        skip: window.skip,
        take: window.take,
        include: { event: { select: { message_id: true, event_type: true } } },
      }),
    attemptCount: (id: number, outcome?: DeliveryOutcome) =>
      db.webhookAttempt.count({ where: { subscription_id: id, ...(outcome ? { outcome } : {}) } }),
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
