// Signing a partner in to the portal with the operator's single-use link, signing out, and the
// gate in front of every other portal page. The session belongs to one client and ends with its
// tokens: each request reads the client's row, and a disabled client, a moved token generation
// (revoke-tokens, disable, rotate-secret) or the end of the secret it began under (a rotation's
// overlap ending, or ended now) ends it, on every gateway at once. A link not yet used ends alike,
// and with the operator's `--revoke-all` (portal-links.ts).
import type { Request, RequestHandler, Router } from 'express';
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import type { RedisClient } from '#common/redis.js';
import { CSRF_FIELD, csrfToken } from '../../pages/forms.js';
import { CLEAR_SITE_DATA, Notice, sendPage } from '../../pages/layout.js';
import { destroySession, regenerateSession, sessionOutlived } from '../../pages/session.js';
import {
  linkKeysOf,
  peekPageLink,
  spendPageLink,
  type PortalLink,
} from '../../pages/sign-in-links.js';
import type { SignedInPartner } from '../../pages/areas.js';
import { recordOperatorAction } from '../operators/operator-audit.js';
import { partnerActor } from './partner.js';
import { findClientById } from '../clients/clients.repository.js';
import { portalLinkLive, tokensOfMomentLive } from './portal-links.js';
import { portalActor, PublicPortalPage, type PortalClient } from './portal-page.js';
import { PORTAL } from './portal-paths.js';

export interface PortalSignInDeps {
  config: Config;
  db: ReadModelClient;
  redis: RedisClient;
}

const HOME = `${PORTAL}/overview`;

function SignedOut(props: { reason?: string | undefined }) {
  return (
    <PublicPortalPage title="Sign in">
      {props.reason ? (
        <Notice kind="error">
          <span safe>{props.reason}</span>
        </Notice>
      ) : (
        ''
      )}
      <p>
        Sign in with the link your API operator made for you. Each link works once and for a short
        time; ask the operator for a new one.
      </p>
    </PublicPortalPage>
  );
}

function InvalidLink() {
  return (
    <PublicPortalPage title="This portal link does not work">
      <Notice kind="error">
        The link has been used already, has expired, or was never made. Ask your API operator for a
        new one.
      </Notice>
    </PublicPortalPage>
  );
}

function ConfirmSignIn(props: { clientKey: string; action: string; csrf: string }) {
  return (
    <PublicPortalPage title="Open the partner portal">
      <p>
        This link opens the portal of client <code safe>{props.clientKey}</code>. It works once:
        press the button to use it.
      </p>
      {/* A whole page load: the session changes, and with it every page. Its address holds the
      link: no copy of the page in htmx's history cache. */}
      <form method="post" action={props.action} hx-boost="false" hx-history="false">
        <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
        <button type="submit">Open the portal</button>
      </form>
    </PublicPortalPage>
  );
}

const CLIENT_FIELDS = {
  id: true,
  client_key: true,
  name: true,
  scopes: true,
  data_classes: true,
  branch_id: true,
  rate_limit_minute: true,
  rate_limit_hour: true,
  rate_limit_day: true,
  is_active: true,
  token_generation: true,
  secret_version: true,
  previous_secret_until: true,
  portal_link_generation: true,
} as const;

/** The session's client while its tokens live; null once they ended or the session did. */
async function liveClient(req: Request, deps: PortalSignInDeps) {
  const { partner, signedInAt } = req.session;
  if (!partner || signedInAt === undefined || sessionOutlived(signedInAt, deps.config)) return null;
  const client = await deps.db.apiClient.findUnique({
    where: { id: partner.clientId },
    select: CLIENT_FIELDS,
  });
  return client && tokensOfMomentLive(client, partner) ? client : null;
}

/** The link's client if the link still opens its portal (portal-links.ts); null otherwise. */
const linkClient = async (db: ReadModelClient, link: PortalLink | null) => {
  const client =
    link &&
    (await db.apiClient.findUnique({ where: { id: link.clientId }, select: CLIENT_FIELDS }));
  return client && portalLinkLive(link, client) ? client : null;
};

/** Every portal page but these routes' own needs a live partner session. */
export function partnerOnly(deps: PortalSignInDeps): RequestHandler {
  return async (req, res, next) => {
    const client = await liveClient(req, deps);
    const { partner } = req.session;
    if (client && partner) {
      res.locals.portalClient = client satisfies PortalClient;
      // The declared pages' visitor (pages/page.tsx).
      res.locals.who = {
        client,
        actor: partnerActor(client.client_key, req.ip ?? null),
        credentials: { generation: partner.generation, secretVersion: partner.secretVersion },
      } satisfies SignedInPartner;
      return next();
    }
    const ended = req.session.partner !== undefined;
    await destroySession(req);
    await sendPage(
      res,
      <SignedOut reason={ended ? 'Your session has ended: open a new portal link.' : undefined} />,
      401,
    );
  };
}

/**
 * After the partner's own rotation of its secret (which ends the client's tokens at once, or at
 * the overlap's end), the session follows the client's new generation and secret: the partner who
 * rotated stays signed in, to read the secret and to end the overlap.
 */
export async function keepSessionAfterOwnChange(
  req: Request,
  who: SignedInPartner,
  db: ReadModelClient,
) {
  const client = await findClientById(db, who.client.id);
  if (client && req.session.partner) {
    req.session.partner.generation = client.token_generation;
    req.session.partner.secretVersion = client.secret_version;
  }
}

export function portalSignInRoutes(router: Router, deps: PortalSignInDeps): void {
  const { redis, config, db } = deps;
  const links = linkKeysOf(config);

  router.get(PORTAL, async (req, res) => {
    if (req.session.partner) return res.redirect(303, HOME);
    await sendPage(res, <SignedOut />);
  });

  router.get(`${PORTAL}/sign-in/:token`, async (req, res) => {
    const link = await peekPageLink<PortalLink>(redis, links, 'portal', req.params.token);
    if (!link || !(await linkClient(db, link))) return sendPage(res, <InvalidLink />, 410);
    await sendPage(
      res,
      <ConfirmSignIn clientKey={link.clientKey} action={req.originalUrl} csrf={csrfToken(req)} />,
    );
  });

  router.post(`${PORTAL}/sign-in/:token`, async (req, res) => {
    const link = await spendPageLink<PortalLink>(redis, links, 'portal', req.params.token);
    const client = await linkClient(db, link);
    if (!client) return sendPage(res, <InvalidLink />, 410);
    await regenerateSession(req);
    req.session.partner = {
      clientId: client.id,
      clientKey: client.client_key,
      generation: client.token_generation,
      secretVersion: client.secret_version,
    };
    req.session.signedInAt = Date.now();
    res.locals.portalClient = client;
    await recordOperatorAction(db, portalActor(req, res), 'portal.sign-in', {
      clientKey: client.client_key,
    });
    res.redirect(303, HOME);
  });

  router.post(`${PORTAL}/sign-out`, async (req, res) => {
    const { partner } = req.session;
    // Named as portalActor names the partner; the gate has not run, so its client is not loaded.
    if (partner)
      await recordOperatorAction(
        db,
        { actor: `partner ${partner.clientKey}`, source: 'portal', address: req.ip ?? null },
        'portal.sign-out',
        { clientKey: partner.clientKey },
      );
    await destroySession(req);
    res.set(...CLEAR_SITE_DATA).redirect(303, PORTAL);
  });
}
