// Signing in to the console (pages/sign-in.tsx's flow): with a single-use link made by
// `npm run console -- link` or, when configured, through an OpenID Connect provider
// (oidc.routes.tsx). The session holds the operator's name, which the console's pages act as.
import { escapeHtml } from '@kitajs/html';
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
    words: ({ signIn: { console: w } }) => ({
      HowTo: () => (
        <>
          <p>
            {escapeHtml(w.howTo[0])} <code>npm run console -- link</code>
            {escapeHtml(w.howTo[1])}
          </p>
          {config.console.oidc ? (
            <p>
              {/* A whole page load: the provider's pages are not this site's. */}
              <a href={OIDC_START} hx-boost="false" safe>
                {w.oidc}
              </a>
            </p>
          ) : (
            ''
          )}
        </>
      ),
      invalid: {
        title: w.invalidTitle,
        Text: () => (
          <>
            {escapeHtml(w.invalid)} <code>npm run console -- link</code>.
          </>
        ),
      },
      confirm: {
        title: w.confirmTitle,
        button: w.button,
        Text: ({ link }) => (
          <p>
            {escapeHtml(w.confirm[0])} <strong safe>{link.name}</strong>
            {escapeHtml(w.confirm[1])}
          </p>
        ),
      },
    }),
  };
}
