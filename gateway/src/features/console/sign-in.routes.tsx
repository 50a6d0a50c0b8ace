// Signing in to the console with a single-use link (`npm run console -- link`) or, when
// configured, through an OpenID Connect provider (oidc.routes.tsx), signing out, and the gate in
// front of every other console page. Opening a link only shows a button; pressing it
// spends the link and opens a session under a new id.
import type { RequestHandler, Router } from 'express';
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import type { Logger } from '#common/logger.js';
import type { RedisClient } from '#common/redis.js';
import { CSRF_FIELD, csrfToken } from '../../pages/forms.js';
import { CLEAR_SITE_DATA, Notice, sendPage } from '../../pages/layout.js';
import {
  destroySession as destroy,
  regenerateSession as regenerate,
  sessionOutlived,
} from '../../pages/session.js';
import { linkKeysOf, peekSignInLink, spendSignInLink } from '../../pages/sign-in-links.js';
import { recordOperatorAction } from '../operators/operator-audit.js';
import { CONSOLE, consoleOperator, PublicPage } from './console-page.js';
import { OIDC_START, oidcRoutes } from './oidc.routes.js';

export interface SignInDeps {
  config: Config;
  db: ReadModelClient;
  redis: RedisClient;
  logger: Logger;
}

function SignedOut(props: { reason?: string; oidc: boolean }) {
  return (
    <PublicPage title="Sign in">
      {props.reason ? (
        <Notice kind="error">
          <span safe>{props.reason}</span>
        </Notice>
      ) : (
        ''
      )}
      <p>
        Sign in with a link made on the gateway's host by <code>npm run console -- link</code>. Each
        link works once and for a short time.
      </p>
      {props.oidc ? (
        <p>
          {/* A whole page load: the provider's pages are not this site's. */}
          <a href={OIDC_START} hx-boost="false">
            Sign in with your organisation's account
          </a>
        </p>
      ) : (
        ''
      )}
    </PublicPage>
  );
}

function InvalidLink() {
  return (
    <PublicPage title="This sign-in link does not work">
      <Notice kind="error">
        The link has been used already, has expired, or was never made. Ask for a new one:{' '}
        <code>npm run console -- link</code>.
      </Notice>
    </PublicPage>
  );
}

function ConfirmSignIn(props: { name: string; action: string; csrf: string }) {
  return (
    <PublicPage title="Sign in to the console">
      <p>
        This link signs in <strong safe>{props.name}</strong>. It works once: press the button to
        use it.
      </p>
      {/* A whole page load: the session changes, and with it every page. Its address holds the
      link: no copy of the page in htmx's history cache. */}
      <form method="post" action={props.action} hx-boost="false" hx-history="false">
        <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
        <button type="submit">Sign in</button>
      </form>
    </PublicPage>
  );
}

/** Every console page but these routes' own needs a live operator session. */
export function operatorOnly(config: Config): RequestHandler {
  return async (req, res, next) => {
    const { operator, signedInAt } = req.session;
    if (operator && signedInAt !== undefined && !sessionOutlived(signedInAt, config)) {
      // The declared pages' visitor (pages/page.tsx).
      res.locals.who = consoleOperator(req);
      return next();
    }
    const ended = operator !== undefined;
    await destroy(req);
    await sendPage(
      res,
      <SignedOut
        reason={ended ? 'Your session has ended: sign in again.' : undefined}
        oidc={config.console.oidc !== null}
      />,
      401,
    );
  };
}

export function signInRoutes(router: Router, deps: SignInDeps): void {
  const { redis, config } = deps;
  const links = linkKeysOf(config);

  router.get(CONSOLE, async (req, res) => {
    if (req.session.operator) return res.redirect(303, `${CONSOLE}/clients`);
    await sendPage(res, <SignedOut oidc={config.console.oidc !== null} />);
  });

  router.get(`${CONSOLE}/sign-in/:token`, async (req, res) => {
    const link = await peekSignInLink(redis, links, req.params.token);
    if (!link) return sendPage(res, <InvalidLink />, 410);
    await sendPage(
      res,
      <ConfirmSignIn name={link.name} action={req.originalUrl} csrf={csrfToken(req)} />,
    );
  });

  router.post(`${CONSOLE}/sign-in/:token`, async (req, res) => {
    const link = await spendSignInLink(redis, links, req.params.token);
    if (!link) return sendPage(res, <InvalidLink />, 410);
    // A new session id: one planted before sign-in is worth nothing after it.
    await regenerate(req);
    req.session.operator = { name: link.name };
    req.session.signedInAt = Date.now();
    await recordOperatorAction(deps.db, consoleOperator(req), 'console.sign-in');
    res.redirect(303, `${CONSOLE}/clients`);
  });

  oidcRoutes(router, deps);

  router.post(`${CONSOLE}/sign-out`, async (req, res) => {
    if (req.session.operator)
      await recordOperatorAction(deps.db, consoleOperator(req), 'console.sign-out');
    await destroy(req);
    res.set(...CLEAR_SITE_DATA).redirect(303, CONSOLE);
  });
}
