// The credentials a webhook subscription stands on (docs/decisions/0012-webhooks.md,
// "Credentials"): those that created it or last changed its URL, or that its partner enabled it
// with. A leaked client secret must not leave a tap on member data once the partner rotates it, so
// when those credentials end (rotate-secret, its overlap's end, revoke-tokens, disable, the
// partner's revoke of every token) the subscription is disabled `credentials-ended`, and stays so
// until its partner, with live credentials, looks and enables it again. The gateway disables them
// in the transaction that ends the credentials; the worker's sweep takes those whose end came with
// time (an overlap running out), and delivery sends nothing for them meanwhile.
import { hostname } from 'node:os';
import { raw, sql, type Sql } from '#read-model/sql.js';
import type { DisabledReason } from './vocabulary.js';

/**
 * The client's token_generation and the secret_version its caller's token chain (or portal
 * session) began under: what a token pair carries (api_tokens.generation, .secret_version).
 */
export interface Credentials {
  generation: number;
  secretVersion: number;
}

export const CREDENTIALS_ENDED: DisabledReason = 'credentials-ended';

/** The stored form of `credentials` on a subscription. */
export const credentialsColumns = (credentials: Credentials) => ({
  credentials_generation: credentials.generation,
  credentials_secret_version: credentials.secretVersion,
});

/**
 * Whether subscription `s`'s credentials still live under its client `c`: the rule a token pair
 * is checked by (gateway/src/trust/access-tokens.ts, secret-overlap.ts), in SQL: the client's
 * generation, and its current secret or the previous one within the overlap. Never NULL: an
 * ended overlap (previous_secret_until NULL) is false, so NOT of it is true.
 */
export const CREDENTIALS_LIVE = `(s.credentials_generation = c.token_generation
  AND (s.credentials_secret_version = c.secret_version
       OR (s.credentials_secret_version = c.secret_version - 1
           AND coalesce(c.previous_secret_until > now(), false))))`;

/**
 * Disables the subscriptions (of one client, or of all) whose credentials ended, with one record
 * each in the operator audit (`webhooks.disable`, naming the reason), and returns their ids. An
 * enabled one, or one disabled automatically (`gone`, `failing`: its partner would enable it
 * without looking); the operator's hold stays the operator's. `source`: the process that saw it.
 */
export function disableEndedSubscriptions(
  clientId: number | null,
  source: 'gateway' | 'worker',
): Sql {
  return sql`
    WITH ended AS (
      UPDATE webhook_subscriptions s
         SET enabled = false, disabled_reason = ${CREDENTIALS_ENDED}, disabled_at = now()
        FROM api_clients c
       WHERE c.id = s.client_id
         AND (${clientId}::int IS NULL OR s.client_id = ${clientId}::int)
         AND (s.enabled OR s.disabled_reason IN ('gone', 'failing'))
         AND NOT ${raw(CREDENTIALS_LIVE)}
      RETURNING s.id, c.client_key
    ), audited AS (
      INSERT INTO operator_audit (actor, source, action, client_key, target, address)
      SELECT 'system', ${source}, 'webhooks.disable', client_key,
             'subscription ' || id || ': ' || ${CREDENTIALS_ENDED}, ${hostname()}
        FROM ended
    )
    SELECT id FROM ended ORDER BY id`;
}
