// The operator's portal link for a partner, from the CLI (`npm run clients -- portal-link`) and
// the console alike: a single-use sign-in link (pages/sign-in-links.ts) that opens the portal of
// one client, recorded in the operator audit.
import type { ReadModelClient } from '#common/databases.js';
import type { RedisClient } from '#common/redis.js';
import { createPageLink, type PortalLink } from '../../pages/sign-in-links.js';
import { findClientByKey } from '../clients/clients.repository.js';
import { recordOperatorAction, type Operator } from '../operators/operator-audit.js';
import { OperatorRefusal } from '../../cli/operator-refusal.js';
import { PORTAL } from './portal-paths.js';

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

/** A link that signs a partner in to its client's portal once, within `ttlMs`. */
export async function makePortalLink(
  deps: PortalLinkDeps,
  operator: Operator,
  clientKey: string,
  ttlMs: number,
): Promise<MadePortalLink> {
  const client = await findClientByKey(deps.db, clientKey);
  if (!client) throw new OperatorRefusal(`no client with key ${clientKey}`);
  if (!client.is_active)
    throw new OperatorRefusal(`client ${clientKey} is disabled: enable it before its portal`, 1);
  const link: PortalLink = { clientId: client.id, clientKey };
  const token = await createPageLink(deps.redis, deps, 'portal', link, ttlMs);
  await recordOperatorAction(deps.db, operator, 'portal.link', { clientKey });
  return {
    url: `${deps.publicOrigin}${PORTAL}/sign-in/${token}`,
    clientKey,
    expiresAt: new Date(Date.now() + ttlMs),
  };
}
