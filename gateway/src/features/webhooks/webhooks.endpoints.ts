// Webhook subscriptions, managed by their owner (scope webhooks:manage; decision 0012). A client
// reaches only its own subscriptions (webhooks.service.ts); types follow the change feed's names
// and the client's scopes, and the target must be a public address unless operators allow
// private ones.
import { z } from 'zod';
import { TYPE_NAMES } from '../../../../api/changes/change-types.js';
import { MAX_URL_LENGTH, targetProblem } from '../../../../api/webhooks/targets.js';
import { defineEndpoint } from '../../http/endpoint.js';
import { notFound, validationError } from '../../http/errors.js';
import { idParams } from '../../http/filters.js';
import { listPage, listResponse, paginationQuery } from '../../http/pagination.js';
import { typesAsked } from '../changes/changes.endpoints.js';

const EXAMPLE = {
  id: 7,
  url: 'https://partner.example.com/hooks/club',
  types: ['members', 'member_packages'],
  description: 'Turnike sistemi',
  enabled: true,
  disabled_reason: null,
  disabled_at: null,
  created_at: '2026-11-25T09:00:00.000Z',
};

const webhookSchema = z
  .object({
    id: z.int(),
    url: z.string(),
    types: z.array(z.string()),
    description: z.string().nullable(),
    enabled: z.boolean(),
    disabled_reason: z.enum(['gone', 'failing', 'operator', 'client']).nullable().meta({
      description:
        'gone: the target answered 410; failing: 5 days of failed tries; operator: disabled by the API operator, who alone can enable it again (enable answers 403)',
    }),
    disabled_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'WebhookSubscription', examples: [EXAMPLE] });

const withSecret = webhookSchema
  .extend({
    secret: z.string().meta({
      description: 'whsec_… signing secret (Standard Webhooks); shown only here',
      examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    }),
  })
  .meta({
    id: 'WebhookSubscriptionWithSecret',
    examples: [{ ...EXAMPLE, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }],
  });

const FIGURES_EXAMPLE = {
  events: { published: 120, delivered: 117, failed: 1, pending: 2 },
  attempts: { delivered: 117, http_error: 6, timeout: 1 },
  last_success_at: '2026-11-25T09:31:02.000Z',
  last_failure_at: '2026-11-25T09:12:40.000Z',
  last_failure_reason: 'http_error 503',
  oldest_pending_at: '2026-11-25T09:30:58.000Z',
};

const figuresSchema = z
  .object({
    events: z.object({
      published: z.int(),
      delivered: z.int(),
      failed: z.int(),
      pending: z.int(),
    }),
    attempts: z.record(z.string(), z.int()).meta({ description: 'tries by outcome' }),
    last_success_at: z.iso.datetime().nullable(),
    last_failure_at: z.iso.datetime().nullable(),
    last_failure_reason: z.string().nullable(),
    oldest_pending_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'WebhookDeliveryFigures' });

const attemptSchema = z
  .object({
    id: z.int(),
    webhook_id: z.string(),
    event_type: z.string(),
    attempted_at: z.iso.datetime(),
    outcome: z.enum([
      'delivered',
      'http_error',
      'redirect',
      'gone',
      'timeout',
      'network_error',
      'refused_target',
    ]),
    status_code: z.int().nullable(),
    duration_ms: z.int(),
    response: z.string().nullable().meta({ description: 'first 1,024 characters of the answer' }),
  })
  .meta({
    id: 'WebhookAttempt',
    examples: [
      {
        id: 5120,
        webhook_id: 'msg_4f0c2a8e6b1d4c37a9e2d5b8c1f3a6e9',
        event_type: 'members.upsert',
        attempted_at: '2026-11-25T09:31:02.000Z',
        outcome: 'http_error',
        status_code: 503,
        duration_ms: 84,
        response: 'Service Unavailable',
      },
    ],
  });

const createBody = z
  .object({
    url: z.string().max(MAX_URL_LENGTH),
    types: z
      .array(z.string())
      .min(1)
      .optional()
      .meta({
        description: `subset of ${TYPE_NAMES.join(', ')}; default: every type the scopes allow`,
      }),
    description: z.string().max(500).optional(),
  })
  .meta({ id: 'WebhookCreateRequest' });

const replayBody = z
  .object({
    since: z.iso.datetime({ offset: true }),
    failed_only: z.boolean().default(false),
  })
  .meta({ id: 'WebhookReplayRequest' });

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

const item = (schema: z.ZodType, id: string) =>
  z.object({ success: z.boolean(), data: schema }).meta({ id });

export const webhookEndpoints = [
  defineEndpoint({
    operationId: 'createWebhook',
    group: 'webhooks',
    method: 'POST',
    path: '/webhooks',
    summary: 'Webhook aboneliği oluştur',
    description:
      'Every change the change feed would show this client becomes a signed `POST url` (Standard Webhooks). The secret is shown once. The URL must resolve to public addresses. A client holds at most 10 subscriptions (the operator may set another limit): one more is 400 `VALIDATION_ERROR` naming the limit.',
    access: 'webhooks:manage',
    body: createBody,
    response: item(withSecret, 'WebhookCreatedResponse'),
    status: 201,
    tables: [],
    handle: async ({ body, auth, services }) => {
      const caller = auth();
      const types = typesAsked(body.types, caller.scopes);
      if (types.length === 0) {
        throw validationError([
          { field: 'types', message: 'İstemcinin okuma yetkisi olan bir tür yok.' },
        ]);
      }
      const problem = await targetProblem(body.url, services.webhooks.targets);
      if (problem) throw validationError([{ field: 'url', message: problem.reason }]);
      const created = await services.webhooks.service.create(caller.clientId, {
        url: body.url,
        types,
        description: body.description ?? null,
      });
      return { success: true, data: { ...toApi(created), secret: created.secret } };
    },
  }),
  defineEndpoint({
    operationId: 'listWebhooks',
    group: 'webhooks',
    method: 'GET',
    path: '/webhooks',
    summary: 'Webhook abonelikleri',
    access: 'webhooks:manage',
    response: z
      .object({ success: z.boolean(), data: z.array(webhookSchema) })
      .meta({ id: 'WebhookListResponse' }),
    tables: [],
    handle: async ({ auth, services }) => {
      const rows = await services.webhooks.service.list(auth().clientId);
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
      'Delivery figures: events published = delivered + failed + pending; tries by outcome; the last success and failure.',
    access: 'webhooks:manage',
    params: idParams,
    response: item(
      webhookSchema.extend({ deliveries: figuresSchema }).meta({
        id: 'WebhookWithDeliveries',
        examples: [{ ...EXAMPLE, deliveries: FIGURES_EXAMPLE }],
      }),
      'WebhookResponse',
    ),
    tables: [],
    handle: async ({ params, auth, services }) => {
      const row = found(await services.webhooks.service.find(auth().clientId, params.id));
      const deliveries = await services.webhooks.service.figures(row.id);
      return { success: true, data: { ...toApi(row), deliveries } };
    },
  }),
  defineEndpoint({
    operationId: 'deleteWebhook',
    group: 'webhooks',
    method: 'DELETE',
    path: '/webhooks/{id}',
    summary: 'Webhook aboneliğini sil',
    description: 'Its pending events are dropped with it.',
    access: 'webhooks:manage',
    params: idParams,
    response: z
      .object({ success: z.boolean(), message: z.string() })
      .meta({ id: 'WebhookDeletedResponse' }),
    tables: [],
    handle: async ({ params, auth, services }) => {
      if (!(await services.webhooks.service.remove(auth().clientId, params.id))) {
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
    response: item(withSecret, 'WebhookRotatedResponse'),
    tables: [],
    handle: async ({ params, auth, services }) => {
      const row = found(await services.webhooks.service.rotateSecret(auth().clientId, params.id));
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
      'Its pending events are tried again at once, on a fresh retry schedule. A subscription disabled automatically (`gone`, `failing`) can be enabled here; one the API operator disabled (`operator`) cannot: 403 `INSUFFICIENT_SCOPE`, only the operator enables it again.',
    access: 'webhooks:manage',
    params: idParams,
    bodyOptional: true,
    response: item(webhookSchema, 'WebhookEnabledResponse'),
    tables: [],
    handle: async ({ params, auth, services }) => {
      const row = found(
        await services.webhooks.service.setEnabled(auth().clientId, params.id, true),
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
      'Events recorded since `since` are sent again with their own `webhook-id`: the failed ones (`failed_only`), or every delivered and failed one. At most 10,000 events per request (the operator may set another limit): a request that would cover more is 400 `VALIDATION_ERROR` naming the limit, and nothing is replayed; choose a later `since`.',
    access: 'webhooks:manage',
    params: idParams,
    body: replayBody,
    response: item(z.object({ replayed: z.int() }), 'WebhookReplayResponse'),
    status: 202,
    tables: [],
    handle: async ({ params, body, auth, services }) => {
      const replayed = found(
        await services.webhooks.service.replay(
          auth().clientId,
          params.id,
          new Date(body.since),
          body.failed_only,
        ),
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
    response: listResponse(attemptSchema, 'WebhookAttemptListResponse'),
    tables: [],
    handle: async ({ params, query, auth, services }) => {
      const { service } = services.webhooks;
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
