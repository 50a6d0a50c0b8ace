// The webhook endpoints' request and answer schemas (webhooks.endpoints.ts), from which the
// OpenAPI document is generated.
import { z } from 'zod';
import { TYPE_NAMES } from '#api/changes/change-types.js';
import { MAX_URL_LENGTH } from '#api/webhooks/targets.js';
import { DELIVERY_OUTCOMES, DISABLED_REASONS } from '#api/webhooks/vocabulary.js';
import { listResponse } from '../../http/pagination.js';
import { changeSchema } from '../changes/changes.endpoints.js';
import { eventTypesFor } from './webhooks.event-types.js';

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

export const webhookSchema = z
  .object({
    id: z.int(),
    url: z.string(),
    types: z.array(z.string()),
    description: z.string().nullable(),
    enabled: z.boolean(),
    disabled_reason: z.enum(DISABLED_REASONS).nullable().meta({
      description:
        'gone: the target answered 410; failing: 5 days of failed tries; operator: disabled by the API operator, who alone can enable it again (enable answers 403); credentials-ended: the client secret or tokens that created it or last changed its URL ended (rotate-secret, its overlap ending, every token revoked, the client disabled): check the URL is yours, then enable it',
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
  events: { published: 120, delivered: 116, failed: 1, pending: 2, cancelled: 1 },
  attempts: { delivered: 116, http_error: 6, timeout: 1 },
  last_success_at: '2026-11-25T09:31:02.000Z',
  last_failure_at: '2026-11-25T09:12:40.000Z',
  last_failure_reason: 'http_error 503',
  oldest_pending_at: '2026-11-25T09:30:58.000Z',
};

const figuresSchema = z
  .object({
    events: z
      .object({
        published: z.int(),
        delivered: z.int(),
        failed: z.int(),
        pending: z.int(),
        cancelled: z.int().meta({
          description:
            "not sent, nor replayed: when its turn came, the client was disabled, lacked `webhooks:manage` or the read scope of the event's type, or was bound to a branch the event's row is not in",
        }),
      })
      .meta({ description: 'published = delivered + failed + pending + cancelled' }),
    attempts: z.record(z.string(), z.int()).meta({ description: 'tries by outcome' }),
    last_success_at: z.iso.datetime().nullable(),
    last_failure_at: z.iso.datetime().nullable(),
    last_failure_reason: z.string().nullable(),
    oldest_pending_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'WebhookDeliveryFigures' });

export const attemptSchema = z
  .object({
    id: z.int(),
    webhook_id: z.string(),
    event_type: z.string(),
    attempted_at: z.iso.datetime(),
    outcome: z.enum(DELIVERY_OUTCOMES),
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

/** Feed type names (GET /webhooks/event-types lists those the caller may choose). */
const typesField = z.array(z.string()).min(1);
const TYPES_TEXT = `subset of ${TYPE_NAMES.join(', ')} (see GET /webhooks/event-types)`;

export const createBody = z
  .object({
    url: z.string().max(MAX_URL_LENGTH),
    types: typesField
      .optional()
      .meta({ description: `${TYPES_TEXT}; default: every type the scopes allow` }),
    description: z.string().max(500).optional(),
  })
  .meta({ id: 'WebhookCreateRequest' });

export const updateBody = z
  .object({
    url: z.string().max(MAX_URL_LENGTH).optional(),
    types: typesField.optional().meta({ description: `${TYPES_TEXT}; replaces the list` }),
    description: z.string().max(500).nullable().optional().meta({ description: 'null clears it' }),
  })
  .refine((patch) => Object.values(patch).some((value) => value !== undefined), {
    message: 'En az bir alan (url, types, description) gerekli.',
  })
  .meta({
    id: 'WebhookUpdateRequest',
    examples: [{ url: 'https://partner.example.com/hooks/club-v2' }],
  });

export const replayBody = z
  .object({
    since: z.iso.datetime({ offset: true }),
    failed_only: z.boolean().default(false),
  })
  .meta({ id: 'WebhookReplayRequest' });

const item = (schema: z.ZodType, id: string) =>
  z.object({ success: z.boolean(), data: schema }).meta({ id });

export const webhookCreatedResponse = item(withSecret, 'WebhookCreatedResponse');
export const webhookListResponse = z
  .object({ success: z.boolean(), data: z.array(webhookSchema) })
  .meta({ id: 'WebhookListResponse' });
export const webhookResponse = item(
  webhookSchema.extend({ deliveries: figuresSchema }).meta({
    id: 'WebhookWithDeliveries',
    examples: [{ ...EXAMPLE, deliveries: FIGURES_EXAMPLE }],
  }),
  'WebhookResponse',
);
export const webhookDeletedResponse = z
  .object({ success: z.boolean(), message: z.string() })
  .meta({ id: 'WebhookDeletedResponse' });
export const webhookRotatedResponse = item(withSecret, 'WebhookRotatedResponse');
export const webhookEnabledResponse = item(webhookSchema, 'WebhookEnabledResponse');
export const webhookReplayResponse = item(z.object({ replayed: z.int() }), 'WebhookReplayResponse');
export const webhookAttemptListResponse = listResponse(attemptSchema, 'WebhookAttemptListResponse');

export const webhookUpdatedResponse = item(webhookSchema, 'WebhookUpdatedResponse');

export const webhookTestResponse = item(
  z
    .object({
      webhook_id: z.string().meta({ description: 'the `webhook-id` header the test carried' }),
      outcome: z.enum(DELIVERY_OUTCOMES),
      status_code: z.int().nullable(),
      duration_ms: z.int(),
      response: z.string().nullable().meta({
        description:
          "for a 2xx, the answer's first 1,024 characters as text (the endpoint's text, never to be rendered as HTML); with no answer, fixed words (`connection refused`, `timed out`, `name not resolved`, `target not allowed`, `connection failed`); null for another status",
      }),
    })
    .meta({
      id: 'WebhookTestResult',
      examples: [
        {
          webhook_id: 'msg_9b2f7c1e04d84a5f8e3a6c2d1b0f4e7a',
          outcome: 'delivered',
          status_code: 200,
          duration_ms: 63,
          response: '{"ok":true}',
        },
      ],
    }),
  'WebhookTestResponse',
);

const eventBodySchema = z
  .object({
    type: z.string().meta({ description: '`<type>.upsert` or `<type>.delete`' }),
    timestamp: z.iso.datetime(),
    data: changeSchema,
    cursor: z.string().meta({ description: 'resumes GET /changes right after the change' }),
  })
  .meta({ id: 'WebhookEventBody' });

export const eventTypeSchema = z
  .object({
    type: z.enum(TYPE_NAMES as [string, ...string[]]).meta({ description: 'what `types` names' }),
    scope: z.string().meta({ description: 'the scope that reads it' }),
    events: z.array(z.string()).meta({ description: "the `type` of its events' bodies" }),
    example: eventBodySchema,
  })
  .meta({ id: 'WebhookEventType', examples: eventTypesFor(['members:read']).slice(0, 1) });

export const eventTypeListResponse = z
  .object({ success: z.boolean(), data: z.array(eventTypeSchema) })
  .meta({ id: 'WebhookEventTypeListResponse' });
