// The words of webhooks that both processes use: the worker writes them, the gateway and the
// operator's CLI read them, and the OpenAPI document lists them (decision 0012).

/** What one try came to (webhook_attempts.outcome). */
export const DELIVERY_OUTCOMES = [
  'delivered',
  'http_error',
  'redirect',
  'gone',
  'timeout',
  'network_error',
  'refused_target',
] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/**
 * Why a subscription is disabled (webhook_subscriptions.disabled_reason): `gone`, its target
 * answered 410; `failing`, 5 days of failed tries; `operator`, the operator's disable, which only
 * the operator lifts; `credentials-ended`, the credentials that created it or last changed its URL
 * ended (credentials.ts), and its partner enables it again after looking.
 */
export const DISABLED_REASONS = ['gone', 'failing', 'operator', 'credentials-ended'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/**
 * Where an event stands (webhook_events.status); GET /webhooks/{id} counts each. `cancelled`: its
 * client could no longer receive it when its turn came (api/webhooks/rights.ts), so it was not
 * sent, and is not sent again.
 */
export const EVENT_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
