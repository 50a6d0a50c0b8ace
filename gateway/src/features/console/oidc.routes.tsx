// Signing in to the console through the OpenID Connect provider of CONSOLE_OIDC_* (oidc-sign-in.ts):
// /console/oidc/start sends the browser to the provider, /console/oidc/callback takes its answer.
// The session cookie is SameSite=Strict, so a browser sends none with the provider's redirect
// back: the flow is tied to the browser by a cookie of its own (SameSite=Lax, ten minutes), and
// the signed-in page links to the console, whose first request then carries the new session.
// Neither route needs a session, so both are limited per address (CONSOLE_SIGN_IN_PER_MINUTE): a
// flow's state in Redis, and an audit record, cost something, and anyone can ask for them.
import type { Request, RequestHandler, Response, Router } from 'express';
import { rateLimit, type Options } from 'express-rate-limit';
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import { throttledLog } from '#common/log-throttle.js';
import type { Logger } from '#common/logger.js';
import type { RedisClient } from '#common/redis.js';
import { GatewayRedisStore } from '../../http/rate-limit/rate-limit-store.js';
import { CONSOLE, CONSOLE_AREA } from '../../pages/areas.js';
import { Notice, publicFrame, sendPage } from '../../pages/layout.js';
import { beginSession } from '../../pages/sign-in.js';
import { linkKeysOf } from '../../pages/sign-in-links.js';
import { recordOperatorAction } from '../operators/operator-audit.js';
import { FLOW_TTL_MS, OidcRefusal, oidcProvider, UnboundAnswer } from './oidc-sign-in.js';

export const OIDC_START = `${CONSOLE}/oidc/start`;
const PublicPage = publicFrame(CONSOLE_AREA);
const OIDC_CALLBACK = `${CONSOLE}/oidc/callback`;

export interface OidcDeps {
  config: Config;
  db: ReadModelClient;
  redis: RedisClient;
  logger: Logger;
}

function cookieOf(req: Request, name: string): string | undefined {
  const pair = (req.get('cookie') ?? '')
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${name}=`));
  return pair?.slice(name.length + 1);
}

/** A link out of the flow's pages, as a whole page load: the session (or the site) changes. */
const WholeLoad = (props: { href: string; children: string }) => (
  <p>
    <a href={props.href} hx-boost="false" safe>
      {props.children}
    </a>
  </p>
);

function Refused(props: { reason: string }) {
  return (
    <PublicPage title="Sign-in refused">
      <Notice kind="error">
        <span safe>{`Refused: ${props.reason}.`}</span>
      </Notice>
      <WholeLoad href={OIDC_START}>Sign in again</WholeLoad>
    </PublicPage>
  );
}

function SignedIn(props: { email: string }) {
  return (
    <PublicPage title="Signed in">
      <p>
        Signed in as <strong safe>{props.email}</strong>.
      </p>
      <WholeLoad href={CONSOLE_AREA.home}>Open the console</WholeLoad>
    </PublicPage>
  );
}

/**
 * At most CONSOLE_SIGN_IN_PER_MINUTE requests per address to both routes together, counted in
 * Redis (every gateway shares the count) by the store the token throttle uses. Redis away: as the
 * operator chose for every limit (RATE_LIMIT_REDIS_FAILURE).
 */
function signInLimit(deps: OidcDeps, log: ReturnType<typeof throttledLog>): RequestHandler {
  const store = new GatewayRedisStore(
    deps.redis,
    `${deps.config.redis.prefix}:console-oidc:`,
    (e) => {
      log(
        'warn',
        'console-oidc-limit',
        { err: e },
        'console sign-in counters unreachable in Redis',
      );
      return e;
    },
  );
  return rateLimit({
    windowMs: 60_000,
    limit: deps.config.console.signInPerMinute,
    store,
    standardHeaders: false,
    legacyHeaders: false,
    passOnStoreError: deps.config.rateLimit.onRedisFailure === 'open',
    // The configuration checks TRUST_PROXY itself; the library's checks would write to stderr.
    validate: false,
    handler: (_req, res, _next, options: Options) => {
      res.set('Retry-After', String(Math.ceil(options.windowMs / 1000)));
      void sendPage(
        res,
        <Refused reason="too many sign-in attempts from this address; wait a minute" />,
        429,
      );
    },
  });
}

export function oidcRoutes(router: Router, deps: OidcDeps): void {
  const settings = deps.config.console.oidc;
  if (!settings) return;
  const provider = oidcProvider(settings);
  const flows = linkKeysOf(deps.config);
  const { secureCookie, publicOrigin } = deps.config.console;
  // PUBLIC_BASE_URL (required with OIDC): never the request's Host, which its sender chooses.
  const redirectUri = `${publicOrigin}${OIDC_CALLBACK}`;
  const cookieName = secureCookie ? '__Host-console-oidc' : 'console-oidc';
  const unreachable = (res: Response) =>
    sendPage(res, <Refused reason="the sign-in provider could not be reached; try later" />, 502);
  const log = throttledLog(deps.logger, 60_000);
  const limit = signInLimit(deps, log);

  router.get(OIDC_START, limit, async (_req, res) => {
    let begun;
    try {
      begun = await provider.begin(deps.redis, flows, redirectUri);
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

  router.get(OIDC_CALLBACK, limit, async (req, res) => {
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
        flows,
        cookieOf(req, cookieName),
        new URL(req.originalUrl, publicOrigin),
      );
    } catch (error) {
      if (!(error instanceof OidcRefusal)) return unreachable(res);
      // Anyone can send an answer without a flow: logged (at most once a minute, with how many
      // were held back), never a 400-day audit record each.
      if (error instanceof UnboundAnswer)
        log(
          'warn',
          'console-oidc-unbound',
          { address: req.ip },
          'console sign-in answer without a flow refused',
        );
      else
        await recordOperatorAction(
          deps.db,
          { actor: 'unknown', source: 'console', address: req.ip ?? null },
          'console.sign-in-refused',
          { target: error.message.slice(0, 200) },
        );
      return sendPage(res, <Refused reason={error.message} />, 403);
    }
    await beginSession(req);
    req.session.operator = { name: email };
    await recordOperatorAction(
      deps.db,
      { actor: email, source: 'console', address: req.ip ?? null },
      'console.sign-in',
      { target: 'oidc' },
    );
    await sendPage(res, <SignedIn email={email} />);
  });
}
