// The Standard Webhooks signature of a delivery (webhook-id, webhook-timestamp, webhook-signature),
// so partners verify it with the `standardwebhooks` package or any library of that standard.
import { Webhook } from 'standardwebhooks';

/** The Standard Webhooks headers of one try: every current secret signs. */
export function signedHeaders(
  event: { message_id: string; body: string; secrets: readonly string[] },
  now = new Date(),
) {
  return {
    'webhook-id': event.message_id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': event.secrets
      .map((secret) => new Webhook(secret).sign(event.message_id, now, event.body))
      .join(' '),
  };
}

/**
 * The stored secrets that sign now: the current one, and the previous one within the 24 hours
 * after a rotation (PREVIOUS_SECRET_MS).
 */
export function signingSecrets(
  subscription: {
    secret: string;
    previous_secret: string | null;
    previous_secret_until: Date | null;
  },
  now: number,
): string[] {
  const { secret, previous_secret: previous, previous_secret_until: until } = subscription;
  return previous !== null && until !== null && until.getTime() > now
    ? [secret, previous]
    : [secret];
}
