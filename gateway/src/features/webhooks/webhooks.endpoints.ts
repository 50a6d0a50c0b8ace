// Webhook subscriptions, managed by their owner (scope webhooks:manage; decision 0012). A client
// reaches only its own subscriptions (webhooks.service.ts); types follow the change feed's names
// and the client's scopes, and the target must be a public address unless operators allow
// private ones.
import type { z } from 'zod';
import { defineEndpoint } from '../../endpoint-services.js';
import { notFound } from '../../http/errors.js';
import type { AuthContext } from '../../trust/access-tokens.js';
import type { Partner } from './webhooks.service.js';
import { idParams } from '../../http/filters.js';
import { listPage, paginationQuery } from '../../http/pagination.js';
import { eventTypesFor } from './webhooks.event-types.js';
import { TESTS_PER_MINUTE } from './webhooks.test-event.js';
import {
  attemptSchema,
  createBody,
  eventTypeListResponse,
  updateBody,
  webhookTestResponse,
  webhookUpdatedResponse,
  replayBody,
  webhookAttemptListResponse,
  webhookCreatedResponse,
  webhookDeletedResponse,
  webhookEnabledResponse,
  webhookListResponse,
  webhookReplayResponse,
  webhookResponse,
  webhookRotatedResponse,
  webhookSchema,
} from './webhooks.schemas.js';

type Subscription = {
  id: number;
  url: string;
  types: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: Date | null;
  created_at: Date;
};

const toApi = (row: Subscription) => ({
  id: row.id,
  url: row.url,
  types: row.types,
  description: row.description,
  enabled: row.enabled,
  disabled_reason: row.disabled_reason as z.infer<typeof webhookSchema>['disabled_reason'],
  disabled_at: row.disabled_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
});

const found = <T>(row: T | null): T => {
  if (row === null) throw notFound('Abonelik bulunamadı.');
  return row;
};

/** The token's client acting on its own subscriptions, as the operator audit records it. */
const apiPartner = (auth: AuthContext, address: string | null): Partner => ({
  ...auth,
  actor: { actor: `partner ${auth.clientKey}`, source: 'api', address },
});

export const webhookEndpoints = [
  defineEndpoint({
    operationId: 'createWebhook',
    group: 'webhooks',
    method: 'POST',
    path: '/webhooks',
    summary: 'Webhook aboneliği oluştur',
    description:
      "Every change the change feed would show this client becomes a signed `POST url` (Standard Webhooks). The secret is shown once. Delivery is at least once and starts at the change feed's horizon when the subscription is made (the oldest transaction still running in the read model), so its first events may include changes committed moments before it; deduplicate by the `webhook-id` header. The subscription stands on the credentials of this request (the client secret its token chain began under, and its tokens): when they end (the secret rotated, at once or at its overlap's end, every token revoked, the client disabled), it is disabled with `disabled_reason` `credentials-ended` until the client enables it again. The URL must resolve to public addresses. A client holds at most 10 subscriptions (the operator may set another limit): one more is 400 `VALIDATION_ERROR` naming the limit. A target on the host and port of a subscription the API operator disabled (any path or scheme; or, where the operator held only that path, the same path whatever the query) is refused to its client, even after that subscription is deleted: 403 `INSUFFICIENT_SCOPE`, until the operator enables it again.",
    access: 'webhooks:manage',
    body: createBody,
    response: webhookCreatedResponse,
    status: 201,
    tables: [],
    handle: async ({ body, auth, address, services }) => {
      const created = await services.webhooks
        .asPartner(apiPartner(auth(), address))
        .subscribe(body);
      return { success: true, data: { ...toApi(created), secret: created.secret } };
    },
  }),
  // Before GET /webhooks/{id}, which would take `event-types` for an id.
  defineEndpoint({
    operationId: 'listWebhookEventTypes',
    group: 'webhooks',
    method: 'GET',
    path: '/webhooks/event-types',
    summary: 'Abone olunabilecek olay türleri',
    description:
      "The change feed's types this client may subscribe to: those whose read scope it holds. Each brings `<type>.upsert` and `<type>.delete` events; the example is an upsert's body as delivered. A test event (POST /webhooks/{id}/test) has the type `webhook.test` and is sent to no subscription otherwise.",
    access: 'webhooks:manage',
    response: eventTypeListResponse,
    tables: [],
    handle: ({ auth }) => Promise.resolve({ success: true, data: eventTypesFor(auth().scopes) }),
  }),
  defineEndpoint({
    operationId: 'listWebhooks',
    group: 'webhooks',
    method: 'GET',
    path: '/webhooks',
    summary: 'Webhook abonelikleri',
    access: 'webhooks:manage',
    response: webhookListResponse,
    tables: [],
    handle: async ({ auth, services }) => {
      const rows = await services.webhooks.list(auth().clientId);
      return { success: true, data: rows.map(toApi) };
    },
  }),
  defineEndpoint({
    operationId: 'getWebhook',
    group: 'webhooks',
    method: 'GET',
    path: '/webhooks/{id}',
    summary: 'Webhook aboneliği ve teslim durumu',
    description:
      "Delivery figures: events published = delivered + failed + pending + cancelled; tries by outcome; the last success and failure. Events follow the client's rights as they are when each is sent: one the client may no longer receive (disabled, without `webhooks:manage` or the read scope of its type, or bound to a branch its row is not in) is cancelled, neither sent nor replayed.",
    access: 'webhooks:manage',
    params: idParams,
    response: webhookResponse,
    tables: [],
    handle: async ({ params, auth, services }) => {
      const row = found(await services.webhooks.find(auth().clientId, params.id));
      const deliveries = await services.webhooks.figures(row.id);
      return { success: true, data: { ...toApi(row), deliveries } };
    },
  }),
  defineEndpoint({
    operationId: 'updateWebhook',
    group: 'webhooks',
    method: 'PATCH',
    path: '/webhooks/{id}',
    summary: 'Webhook aboneliğini değiştir',
    description:
      "Changes the URL, the types or the description; what the body leaves out stays. The subscription keeps its place in the change feed: no change is skipped or sent twice, and events not yet delivered go to the new URL. The URL and the types are checked as on creation (400 `VALIDATION_ERROR`; a type outside the client's scopes 403 `INSUFFICIENT_SCOPE`); a target the API operator holds (as on creation) is 403 `INSUFFICIENT_SCOPE`, and so is moving a subscription the operator disabled to another target. The signing secret does not change. A new URL stands on the credentials of this request, as on creation.",
    access: 'webhooks:manage',
    params: idParams,
    body: updateBody,
    response: webhookUpdatedResponse,
    tables: [],
    handle: async ({ params, body, auth, address, services }) => {
      const row = found(
        await services.webhooks.asPartner(apiPartner(auth(), address)).update(params.id, body),
      );
      return { success: true, data: toApi(row) };
    },
  }),
  defineEndpoint({
    operationId: 'testWebhook',
    group: 'webhooks',
    method: 'POST',
    path: '/webhooks/{id}/test',
    summary: 'Test olayı gönder',
    description: `Sends a \`webhook.test\` event to the subscription's URL at once, signed and sent as every delivery is (the Standard Webhooks headers, every current secret signing, the same target rules and timeout, redirects not followed), and answers its outcome (\`delivered\` for a 2xx), the status and the duration; for a 2xx only, the answer's first 1,024 characters as text (another status's body is not echoed); when no answer came, fixed words: \`connection refused\`, \`timed out\`, \`name not resolved\`, \`target not allowed\` or \`connection failed\`, never an address or port. The answer is 200 whatever the endpoint answered. The test is not an event of the feed: it is not retried, not replayed and not counted in the delivery figures. A subscription disabled automatically can be tested; one the API operator disabled cannot (403 \`INSUFFICIENT_SCOPE\`). At most ${TESTS_PER_MINUTE} tests per subscription in a minute: past it, 429 \`RATE_LIMIT_EXCEEDED\` with \`Retry-After\` (seconds) equal to \`retryAfter\` in the body. Body: \`{type: "webhook.test", timestamp, data: {subscription_id, message}}\`.`,
    access: 'webhooks:manage',
    params: idParams,
    bodyOptional: true,
    response: webhookTestResponse,
    tables: [],
    handle: async ({ params, auth, address, services }) => {
      const outcome = found(
        await services.webhooks.asPartner(apiPartner(auth(), address)).sendTest(params.id),
      );
      return { success: true, data: outcome };
    },
  }),
  defineEndpoint({
    operationId: 'deleteWebhook',
    group: 'webhooks',
    method: 'DELETE',
    path: '/webhooks/{id}',
    summary: 'Webhook aboneliğini sil',
    description:
      'Its pending events are dropped with it. Deleting a subscription the API operator disabled does not free its target: subscribing to its host and port again is 403 `INSUFFICIENT_SCOPE` until the operator enables it.',
    access: 'webhooks:manage',
    params: idParams,
    response: webhookDeletedResponse,
    tables: [],
    handle: async ({ params, auth, address, services }) => {
      if (!(await services.webhooks.asPartner(apiPartner(auth(), address)).remove(params.id))) {
        throw notFound('Abonelik bulunamadı.');
      }
      return { success: true, message: 'Abonelik silindi.' };
    },
  }),
  defineEndpoint({
    operationId: 'rotateWebhookSecret',
    group: 'webhooks',
    method: 'POST',
    path: '/webhooks/{id}/rotate-secret',
    summary: 'İmza anahtarını yenile',
    description:
      'A new secret, shown once; for 24 hours every delivery carries two signatures, one per secret.',
    access: 'webhooks:manage',
    params: idParams,
    bodyOptional: true,
    response: webhookRotatedResponse,
    tables: [],
    handle: async ({ params, auth, address, services }) => {
      const row = found(
        await services.webhooks.asPartner(apiPartner(auth(), address)).rotateSecret(params.id),
      );
      return { success: true, data: { ...toApi(row), secret: row.secret } };
    },
  }),
  defineEndpoint({
    operationId: 'enableWebhook',
    group: 'webhooks',
    method: 'POST',
    path: '/webhooks/{id}/enable',
    summary: 'Aboneliği yeniden etkinleştir',
    description:
      'Its pending events are tried again at once, on a fresh retry schedule. A subscription disabled automatically (`gone`, `failing`, `credentials-ended`) can be enabled here; one the API operator disabled (`operator`) cannot: 403 `INSUFFICIENT_SCOPE`, only the operator enables it again. The subscription then stands on the credentials of this request: it is disabled `credentials-ended` when they end.',
    access: 'webhooks:manage',
    params: idParams,
    bodyOptional: true,
    response: webhookEnabledResponse,
    tables: [],
    handle: async ({ params, auth, address, services }) => {
      const row = found(
        await services.webhooks.asPartner(apiPartner(auth(), address)).enable(params.id),
      );
      return { success: true, data: toApi(row) };
    },
  }),
  defineEndpoint({
    operationId: 'replayWebhook',
    group: 'webhooks',
    method: 'POST',
    path: '/webhooks/{id}/replay',
    summary: 'Olayları yeniden gönder',
    description:
      'Events recorded since `since` are sent again with their own `webhook-id`: the failed ones (`failed_only`), or every delivered and failed one. An event the client may no longer receive (see `cancelled` in GET /webhooks/{id}) is cancelled instead of sent; a cancelled event is never replayed. At most 10,000 events per request (the operator may set another limit): a request that would cover more is 400 `VALIDATION_ERROR` naming the limit, and nothing is replayed; choose a later `since`. At most 10 replays per subscription in an hour (the operator may set another limit), refused ones included: past it, 429 `RATE_LIMIT_EXCEEDED` with `Retry-After` (seconds) equal to `retryAfter` in the body. At most 20,000 events replayed per subscription in an hour (the operator may set another limit): a request that would go past it is 429 `RATE_LIMIT_EXCEEDED`, nothing replayed, its message and `details` saying how many events remain in the hour, `Retry-After` when the hour ends.',
    access: 'webhooks:manage',
    params: idParams,
    body: replayBody,
    response: webhookReplayResponse,
    status: 202,
    tables: [],
    handle: async ({ params, body, auth, address, services }) => {
      const replayed = found(
        await services.webhooks
          .asPartner(apiPartner(auth(), address))
          .replay(params.id, new Date(body.since), body.failed_only),
      );
      return { success: true, data: { replayed } };
    },
  }),
  defineEndpoint({
    operationId: 'listWebhookDeliveries',
    group: 'webhooks',
    method: 'GET',
    path: '/webhooks/{id}/deliveries',
    summary: 'Teslim denemeleri',
    description:
      'Every try kept, newest first: outcome, status, duration and the start of the answer. An event no longer pending goes with its tries 30 days after it finished (the operator may set another period); the figures of `GET /webhooks/{id}` count what is kept.',
    access: 'webhooks:manage',
    params: idParams,
    query: paginationQuery,
    response: webhookAttemptListResponse,
    tables: [],
    handle: async ({ params, query, auth, services }) => {
      const service = services.webhooks;
      const row = found(await service.find(auth().clientId, params.id));
      return listPage(query, {
        rows: (window) => service.attempts(row.id, window),
        total: () => service.attemptCount(row.id),
        toApi: (attempt) => ({
          id: Number(attempt.id),
          webhook_id: attempt.event.message_id,
          event_type: attempt.event.event_type,
          attempted_at: attempt.attempted_at.toISOString(),
          outcome: attempt.outcome as z.infer<typeof attemptSchema>['outcome'],
          status_code: attempt.status_code,
          duration_ms: attempt.duration_ms,
          response: attempt.response,
        }),
      });
    },
  }),
];
