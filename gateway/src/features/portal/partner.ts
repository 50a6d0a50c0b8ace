// The signed-in partner (pages/areas.ts SignedInPartner) as the API's services see a caller: its
// client's id, scopes and limits, the credentials its session began under, and itself as the
// operator audit names it.
import { currentScopes } from '#api/scopes.js';
import type { SignedInPartner } from '../../pages/areas.js';
import type { UsageCaller } from '../usage/usage.report.js';
import type { Partner } from '../webhooks/webhooks.service.js';

export const partnerOf = ({
  client,
  actor,
  credentials,
}: SignedInPartner): Partner & UsageCaller => ({
  clientId: client.id,
  clientKey: client.client_key,
  scopes: currentScopes(client),
  rateLimits: {
    minute: client.rate_limit_minute,
    hour: client.rate_limit_hour,
    day: client.rate_limit_day,
  },
  credentials,
  actor,
});

/** The partner as the operator audit names it, by its client's key. */
export const partnerActor = (clientKey: string, address: string | null) =>
  ({ actor: `partner ${clientKey}`, source: 'portal', address }) as const;
