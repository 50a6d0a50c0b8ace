// Signing secrets as the Standard Webhooks libraries take them: `whsec_` and the base64 of 24
// random bytes (the specification allows 24 to 64). They are stored encrypted under SECRETS_KEY
// (common/secrets-key.ts), so a copy of the database alone cannot sign.
import { randomBytes } from 'node:crypto';
import { createSealer } from '#common/secrets-key.js';

export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** How long a rotated-out secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_MS = 24 * 3_600_000;

/** The HKDF label of the secrets' key: SECRETS_KEY serves other uses under other labels. */
const SECRET_KEY_LABEL = 'dashboard-partner-api webhook signing secret v1';

/**
 * Signing secrets as stored: sealed under SECRETS_KEY's first key, opened under any of them. A
 * secret stored before they were encrypted is its `whsec_` text, used as it is until
 * `npm run webhooks -- reencrypt-secrets` seals it.
 */
export function webhookSecrets(secretsKeys: readonly string[]) {
  const sealer = createSealer(secretsKeys, SECRET_KEY_LABEL);
  const open = (stored: string) => (stored.startsWith('whsec_') ? stored : sealer.open(stored));
  return {
    seal: (secret: string) => sealer.seal(secret),
    open,
    /** The stored text sealed under the first key, or `stored` itself when it already is. */
    resealed: (stored: string) => (sealer.isCurrent(stored) ? stored : sealer.seal(open(stored))),
  };
}

export type WebhookSecrets = ReturnType<typeof webhookSecrets>;
