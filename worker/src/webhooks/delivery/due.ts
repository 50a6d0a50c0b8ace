// Which of a job's events are tried: read again from PostgreSQL (a job carries ids only), those
// already done, taken or no longer owed left out, those their client may no longer receive
// cancelled, and each with the secrets that sign it.
import { SANDBOX_KEY_PATTERN } from '#api/sandbox.js';
import { CREDENTIALS_LIVE } from '#api/webhooks/credentials.js';
import { mayReceive } from '#api/webhooks/rights.js';
import { signingSecrets } from '#api/webhooks/signing.js';
import type { Deliverer, EventToSend } from './deliverer.js';

const EVENTS_TO_SEND = `
  SELECT e.id::text, e.message_id, e.event_type, e.row_branch_id, e.body, e.status, e.attempts,
         e.changed_at, e.trace_parent, s.id AS subscription_id, s.client_id, s.url, s.enabled,
         ${CREDENTIALS_LIVE} AS credentials_live, s.failing_since,
         s.secret, s.previous_secret, s.previous_secret_until,
         json_build_object('is_active', c.is_active, 'scopes', c.scopes, 'branch_id', c.branch_id,
                           'data_classes', c.data_classes,
                           'sandbox', c.client_key LIKE '${SANDBOX_KEY_PATTERN}') AS client,
         erased.erasure
    FROM webhook_events e JOIN webhook_subscriptions s ON s.id = e.subscription_id
    JOIN api_clients c ON c.id = s.client_id
    -- A member's deletion whose erasure the client is to be told (api/changes/erasures.ts); the
    -- body is read only for such an event.
    LEFT JOIN LATERAL (
      SELECT json_build_object('member_no', x.member_no, 'erased_at', x.erased_at) AS erasure
        FROM member_erasures x
        JOIN member_recipients r ON r.member_id = x.member_id AND r.client_id = s.client_id
       WHERE x.member_id = CASE WHEN e.event_type = 'members.delete'
                                THEN (e.body::jsonb #>> '{data,id}')::int END
    ) erased ON true
   WHERE e.id = ANY($1::bigint[])`;

// Events their client may no longer receive: never sent, nor replayed (replay takes delivered and
// failed events only).
const CANCEL = `
  UPDATE webhook_events SET status = 'cancelled'
   WHERE id = ANY($1::bigint[]) AND status = 'pending'`;

/** The job's events still to be tried; those their client may no longer receive are cancelled. */
export async function dueEvents(
  d: Pick<Deliverer, 'pool' | 'taken'>,
  eventIds: readonly string[],
): Promise<EventToSend[]> {
  const { rows } = await d.pool.query<EventToSend>(EVENTS_TO_SEND, [eventIds]);
  // Delivered, failed, or their subscription disabled or deleted since they were queued. One
  // whose credentials ended waits, pending, for the sweep to disable it and its partner to look.
  const pending = rows.filter(
    (event) =>
      event.status === 'pending' &&
      event.enabled &&
      event.credentials_live &&
      !d.taken.has(event.id),
  );
  // The client's rights as they are now, not as they were when the event was recorded.
  const due = pending.filter((event) => mayReceive(event.client, event));
  if (due.length < pending.length) {
    const refused = pending.filter((event) => !due.includes(event)).map((event) => event.id);
    await d.pool.query(CANCEL, [refused]);
  }
  return due;
}

/**
 * The events with the secrets that sign them. A secret no key of SECRETS_KEY opens: the event is
 * not tried and stays pending, so the sweep brings it back until the operator sets the key that
 * opens it.
 */
export function withSecrets(d: Pick<Deliverer, 'secrets' | 'log'>, due: readonly EventToSend[]) {
  // A job's events mostly share a subscription: each stored secret is opened once per job.
  const opened = new Map<string, string>();
  const open = (stored: string) => {
    let secret = opened.get(stored);
    if (secret === undefined) opened.set(stored, (secret = d.secrets.open(stored)));
    return secret;
  };
  return due.flatMap((event) => {
    try {
      return [{ event, secrets: signingSecrets(event, Date.now()).map(open) }];
    } catch (error) {
      d.log(
        'error',
        'webhook-secret',
        { subscription: event.subscription_id, reason: (error as Error).message },
        'a webhook signing secret cannot be decrypted with SECRETS_KEY; its events wait',
      );
      return [];
    }
  });
}
