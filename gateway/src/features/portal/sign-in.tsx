// Signing a partner in to the portal (pages/sign-in.tsx's flow) with the operator's single-use
// link. The session belongs to one client and ends with its tokens: each request reads the
// client's row, and a disabled client, a moved token generation (revoke-tokens, disable,
// rotate-secret) or the end of the secret it began under (a rotation's overlap ending, or ended
// now) ends it, on every gateway at once. A link not yet used ends alike, and with the operator's
// `--revoke-all` (portal-links.ts).
import { escapeHtml } from '@kitajs/html';
import type { Request } from 'express';
import type { SignedInPartner } from '../../pages/areas.js';
import type { SignInFlow } from '../../pages/sign-in.js';
import {
  linkKeysOf,
  peekPageLink,
  spendPageLink,
  type PortalLink,
} from '../../pages/sign-in-links.js';
import type { PageServices } from '../../page-services.js';
import { findClientById, type ApiClientRecord } from '../clients/clients.repository.js';
import { recordOperatorAction } from '../operators/operator-audit.js';
import { partnerActor } from './partner.js';
import { portalLinkLive, tokensOfMomentLive } from './portal-links.js';

/** A link that still opens its client's portal, with the client as it is now. */
interface OpenLink {
  link: PortalLink;
  client: ApiClientRecord;
}

export function portalSignIn(services: PageServices): SignInFlow<OpenLink, SignedInPartner> {
  const { redis, db, config } = services;
  const links = linkKeysOf(config);
  /** The link's client if the link still opens its portal (portal-links.ts); null otherwise. */
  const open = async (link: PortalLink | null) => {
    const client = link && (await findClientById(db, link.clientId));
    return link && client && portalLinkLive(link, client) ? { link, client } : null;
  };
  const audited = (req: Request, clientKey: string, action: 'portal.sign-in' | 'portal.sign-out') =>
    recordOperatorAction(db, partnerActor(clientKey, req.ip ?? null), action, { clientKey });
  return {
    link: async (token, spend) =>
      open(await (spend ? spendPageLink : peekPageLink)<PortalLink>(redis, links, 'portal', token)),
    begin: async (req, { client }) => {
      req.session.partner = {
        clientId: client.id,
        clientKey: client.client_key,
        generation: client.token_generation,
        secretVersion: client.secret_version,
      };
      await audited(req, client.client_key, 'portal.sign-in');
    },
    who: async (req) => {
      const { partner } = req.session;
      const client = partner && (await findClientById(db, partner.clientId));
      if (!partner || !client || !tokensOfMomentLive(client, partner)) return null;
      const { generation, secretVersion } = partner;
      const actor = partnerActor(client.client_key, req.ip ?? null);
      return { client, actor, credentials: { generation, secretVersion } };
    },
    // Named by the session's client key: the gate has not run, so its client is not read.
    end: async (req) => {
      const clientKey = req.session.partner?.clientKey;
      if (clientKey) await audited(req, clientKey, 'portal.sign-out');
    },
    follow: async (req, { client: { id } }) => {
      const client = await findClientById(db, id);
      if (client && req.session.partner) {
        req.session.partner.generation = client.token_generation;
        req.session.partner.secretVersion = client.secret_version;
      }
    },
    words: ({ signIn: { portal: w } }) => ({
      HowTo: () => <p safe>{w.howTo}</p>,
      invalid: { title: w.invalidTitle, Text: () => escapeHtml(w.invalid) },
      confirm: {
        title: w.confirmTitle,
        button: w.button,
        Text: ({ link: { client } }) => (
          <p>
            {escapeHtml(w.confirm[0])} <code safe>{client.client_key}</code>
            {escapeHtml(w.confirm[1])}
          </p>
        ),
      },
    }),
  };
}
