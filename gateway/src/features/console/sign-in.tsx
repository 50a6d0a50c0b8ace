// Signing in to the console (pages/sign-in.tsx's flow): with a single-use link made by
// `npm run console -- link` or, when configured, through an OpenID Connect provider
// (oidc.routes.tsx). The session holds the operator's name, which the console's pages act as.
import type { Request } from 'express';
import type { Actor } from '../../pages/areas.js';
import type { SignInFlow } from '../../pages/sign-in.js';
import {
  linkKeysOf,
  peekSignInLink,
  spendSignInLink,
  type SignInLink,
} from '../../pages/sign-in-links.js';
import type { PageServices } from '../../page-services.js';
import { recordOperatorAction } from '../operators/operator-audit.js';
import { OIDC_START } from './oidc.routes.js';

/** The operator acting through this request, as the operator audit records it. */
const operatorOf = (req: Request): Actor => ({
  actor: req.session.operator?.name ?? 'unknown',
  source: 'console',
  address: req.ip ?? null,
});

export function consoleSignIn(services: PageServices): SignInFlow<SignInLink, Actor> {
  const { redis, db, config } = services;
  const links = linkKeysOf(config);
  return {
    link: (token, spend) => (spend ? spendSignInLink : peekSignInLink)(redis, links, token),
    begin: async (req, link) => {
      req.session.operator = { name: link.name };
      await recordOperatorAction(db, operatorOf(req), 'console.sign-in');
    },
    who: (req) => Promise.resolve(req.session.operator ? operatorOf(req) : null),
    end: (req) => recordOperatorAction(db, operatorOf(req), 'console.sign-out'),
    words: {
      HowTo: () => (
        <>
          <p>
            Sign in with a link made on the gateway's host by <code>npm run console -- link</code>.
            Each link works once and for a short time.
          </p>
          {config.console.oidc ? (
            <p>
              {/* A whole page load: the provider's pages are not this site's. */}
              <a href={OIDC_START} hx-boost="false">
                Sign in with your organisation's account
              </a>
            </p>
          ) : (
            ''
          )}
        </>
      ),
      invalid: {
        title: 'This sign-in link does not work',
        Text: () => (
          <>
            The link has been used already, has expired, or was never made. Ask for a new one:{' '}
            <code>npm run console -- link</code>.
          </>
        ),
      },
      confirm: {
        title: 'Sign in to the console',
        button: 'Sign in',
        Text: ({ link }) => (
          <p>
            This link signs in <strong safe>{link.name}</strong>. It works once: press the button to
            use it.
          </p>
        ),
      },
    },
  };
}
