// The operator's portal link for a partner, from the CLI (`npm run clients -- portal-link`) and
// the console alike: a single-use sign-in link (pages/sign-in-links.ts) that opens the portal of
// one client, recorded in the operator audit. A link ends with the client's tokens of the moment it
// was made (revoke-tokens, rotate-secret, disable) and with the operator's `--revoke-all`, which
// moves the client's portal_link_generation (docs/decisions/0020-portal.md).
import type { ReadModelClient } from '#common/databases.js';
import type { RedisClient } from '#common/redis.js';
import { createPageLink, type PortalLink } from '../../pages/sign-in-links.js';
import { secretEndsAt, type ClientSecretState } from '../../trust/secret-overlap.js';
import { findClientByKey, type ApiClientRecord } from '../clients/clients.repository.js';
import { recordOperatorAction, type Operator } from '../operators/operator-audit.js';
import { noClient, OperatorRefusal } from '../../cli/operator-refusal.js';
import { PORTAL } from '../../pages/areas.js';

export interface PortalLinkDeps {
  db: ReadModelClient;
  redis: RedisClient;
  /** The deployment's Redis prefix. */
  prefix: string;
  /** SECRETS_KEY's keys, which the link's stored hash is made with. */
  secretsKeys: readonly string[];
  /** PUBLIC_BASE_URL: the links are under it. */
  publicOrigin: string;
}

export interface MadePortalLink {
  url: string;
  clientKey: string;
  expiresAt: Date;
}

/** What of a client decides whether its tokens, its links and its portal sessions live. */
export type PortalClientState = ClientSecretState &
  Pick<ApiClientRecord, 'is_active' | 'token_generation' | 'portal_link_generation'>;

/**
 * Whether a token of the moment (the client's token generation and secret version then) would
 * still be valid: the client enabled, the generation unmoved, its secret not ended (a rotation's
 * overlap included). A portal session and a portal link live no longer.
 */
export const tokensOfMomentLive = (
  client: PortalClientState,
  moment: { generation: number; secretVersion: number },
) =>
  client.is_active &&
  client.token_generation === moment.generation &&
  secretEndsAt(moment.secretVersion, client) > Date.now();

/** Whether a stored link still opens the portal of `client` (its own client, read now). */
export const portalLinkLive = (link: PortalLink, client: PortalClientState) =>
  tokensOfMomentLive(client, link) && client.portal_link_generation === link.linkGeneration;

/** Stores a single-use link to the client's portal for `ttlMs`; its token. */
export const storePortalLink = (
  deps: Pick<PortalLinkDeps, 'redis' | 'prefix' | 'secretsKeys'>,
  client: Pick<
    ApiClientRecord,
    'id' | 'client_key' | 'token_generation' | 'secret_version' | 'portal_link_generation'
  >,
  ttlMs: number,
) =>
  createPageLink<PortalLink>(
    deps.redis,
    deps,
    'portal',
    {
      clientId: client.id,
      clientKey: client.client_key,
      generation: client.token_generation,
      secretVersion: client.secret_version,
      linkGeneration: client.portal_link_generation,
    },
    ttlMs,
  );

/** A link that signs a partner in to its client's portal once, within `ttlMs`. */
export async function makePortalLink(
  deps: PortalLinkDeps,
  operator: Operator,
  clientKey: string,
  ttlMs: number,
): Promise<MadePortalLink> {
  const client = await findClientByKey(deps.db, clientKey);
  if (!client) throw noClient(clientKey);
  if (!client.is_active)
    throw new OperatorRefusal(`client ${clientKey} is disabled: enable it before its portal`, 1, {
      reason: { key: 'client-disabled', clientKey },
    });
  const token = await storePortalLink(deps, client, ttlMs);
  await recordOperatorAction(deps.db, operator, 'portal.link', { clientKey });
  return {
    url: `${deps.publicOrigin}${PORTAL}/sign-in/${token}`,
    clientKey,
    expiresAt: new Date(Date.now() + ttlMs),
  };
}

/**
 * Ends every portal link of the client not yet used (`portal-link KEY --revoke-all`): they were
 * made under the portal link generation this moves. Sessions already opened are left alone.
 */
export async function revokePortalLinks(
  db: ReadModelClient,
  operator: Operator,
  clientKey: string,
): Promise<void> {
  const { count } = await db.apiClient.updateMany({
    where: { client_key: clientKey },
    data: { portal_link_generation: { increment: 1 } },
  });
  if (count === 0) throw noClient(clientKey);
  await recordOperatorAction(db, operator, 'portal.links-revoked', { clientKey });
}
