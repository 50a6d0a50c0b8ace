// Signing in to the console through the OpenID Connect provider of CONSOLE_OIDC_* (oidc-sign-in.ts):
// /console/oidc/start sends the browser to the provider, /console/oidc/callback takes its answer.
// The session cookie is SameSite=Strict, so a browser sends none with the provider's redirect
// back: the flow is tied to the browser by a cookie of its own (SameSite=Lax, ten minutes), and
// the signed-in page links to the console, whose first request then carries the new session.
import type { Request, Response, Router } from 'express';
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import type { RedisClient } from '#common/redis.js';
import { Notice, sendPage } from '../../pages/layout.js';
import { recordOperatorAction } from '../operators/operator-audit.js';
import { CONSOLE, PublicPage } from './console-page.js';
import { FLOW_TTL_MS, OidcRefusal, oidcProvider } from './oidc-sign-in.js';

export const OIDC_START = `${CONSOLE}/oidc/start`;
const OIDC_CALLBACK = `${CONSOLE}/oidc/callback`;

export interface OidcDeps {
  config: Config;
  db: ReadModelClient;
  redis: RedisClient;
}

/** The origin the operator's browser reached this gateway at (TRUST_PROXY behind a proxy). */
const originOf = (req: Request) => `${req.protocol}://${req.get('host') ?? ''}`;

function cookieOf(req: Request, name: string): string | undefined {
  const pair = (req.get('cookie') ?? '')
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${name}=`));
  return pair?.slice(name.length + 1);
}

function Refused(props: { reason: string }) {
  return (
    <PublicPage title="Sign-in refused">
      <Notice kind="error">
        <span safe>{`Refused: ${props.reason}.`}</span>
      </Notice>
      <p>
        <a href={OIDC_START} hx-boost="false">
          Sign in again
        </a>
      </p>
    </PublicPage>
  );
}

function SignedIn(props: { email: string }) {
  return (
    <PublicPage title="Signed in">
      <p>
        Signed in as <strong safe>{props.email}</strong>.
      </p>
      <p>
        <a href={`${CONSOLE}/clients`} hx-boost="false">
          Open the console
        </a>
      </p>
    </PublicPage>
  );
}

const regenerate = (req: Request) =>
  new Promise<void>((resolve, reject) =>
    req.session.regenerate((error) => (error ? reject(error as Error) : resolve())),
  );

export function oidcRoutes(router: Router, deps: OidcDeps): void {
  const settings = deps.config.console.oidc;
  if (!settings) return;
  const provider = oidcProvider(settings);
  const prefix = deps.config.redis.prefix;
  const { secureCookie } = deps.config.console;
  const cookieName = secureCookie ? '__Host-console-oidc' : 'console-oidc';
  const unreachable = (res: Response) =>
    sendPage(res, <Refused reason="the sign-in provider could not be reached; try later" />, 502);

  router.get(OIDC_START, async (req, res) => {
    let begun;
    try {
      begun = await provider.begin(deps.redis, prefix, `${originOf(req)}${OIDC_CALLBACK}`);
    } catch {
      return unreachable(res);
    }
    res.cookie(cookieName, begun.binding, {
      httpOnly: true,
      // Lax: sent with the provider's top-level redirect back, and with no cross-site request else.
      sameSite: 'lax',
      secure: secureCookie,
      path: '/',
      maxAge: FLOW_TTL_MS,
    });
    res.redirect(303, begun.url);
  });

  router.get(OIDC_CALLBACK, async (req, res) => {
    res.clearCookie(cookieName, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: secureCookie,
    });
    let email: string;
    try {
      email = await provider.finish(
        deps.redis,
        prefix,
        cookieOf(req, cookieName),
        new URL(req.originalUrl, originOf(req)),
      );
    } catch (error) {
      if (!(error instanceof OidcRefusal)) return unreachable(res);
      await recordOperatorAction(
        deps.db,
        { actor: 'unknown', source: 'console', address: req.ip ?? null },
        'console.sign-in-refused',
        { target: error.message.slice(0, 200) },
      );
      return sendPage(res, <Refused reason={error.message} />, 403);
    }
    // A new session id: one planted before sign-in is worth nothing after it.
    await regenerate(req);
    req.session.operator = { name: email };
    req.session.signedInAt = Date.now();
    await recordOperatorAction(
      deps.db,
      { actor: email, source: 'console', address: req.ip ?? null },
      'console.sign-in',
      { target: 'oidc' },
    );
    await sendPage(res, <SignedIn email={email} />);
  });
}
