// Signing secrets as the Standard Webhooks libraries take them: `whsec_` and the base64 of 24
// random bytes (the specification allows 24 to 64).
import { randomBytes } from 'node:crypto';

export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** How long a rotated-out secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_MS = 24 * 3_600_000;
