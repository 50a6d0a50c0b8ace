// Signing in to the console through the OpenID Connect provider of CONSOLE_OIDC_* (oidc-sign-in.ts):
// /console/oidc/start sends the browser to the provider, /console/oidc/callback takes its answer.
// The session cookie is SameSite=Strict, so a browser sends none with the provider's redirect
// back: the flow is tied to the browser by a cookie of its own (SameSite=Lax, ten minutes), and
// the signed-in page links to the console, whose first request then carries the new session.
// Neither route needs a session, so both are limited per address (CONSOLE_SIGN_IN_PER_MINUTE): a
// flow's state in Redis, and an audit record, cost something, and anyone can ask for them.
import { escapeHtml } from '@kitajs/html';
import type { Request, RequestHandler, Response, Router } from 'express';
import { rateLimit, type Options } from 'express-rate-limit';
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import { throttledLog } from '#common/log-throttle.js';
import type { Logger } from '#common/logger.js';
import type { RedisClient } from '#common/redis.js';
import { GatewayRedisStore } from '../../http/rate-limit/rate-limit-store.js';
import { CONSOLE, CONSOLE_AREA } from '../../pages/areas.js';
import { languageOf, type PageLanguage } from '../../pages/language.js';
import { Notice, publicFrame, sendPage } from '../../pages/layout.js';
import type { Messages } from '../../pages/messages/index.js';
import { beginSession } from '../../pages/sign-in.js';
import { linkKeysOf } from '../../pages/sign-in-links.js';
import { recordOperatorAction } from '../operators/operator-audit.js';
import {
  FLOW_TTL_MS,
  OidcRefusal,
  oidcProvider,
  UnboundAnswer,
  type OidcReason,
} from './oidc-sign-in.js';

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
const WholeLoad = (props: { href: string; text: string }) => (
  <p>
    <a href={props.href} hx-boost="false" safe>
      {props.text}
    </a>
  </p>
);

/** A refusal's reason in the page's words. */
function reasonWords(reason: OidcReason, { signIn: { oidc: w } }: Messages): string {
  switch (reason.key) {
    case 'unbound':
      return w.unbound;
    case 'unconfirmed':
      return w.unconfirmed;
    case 'no-email':
      return w.noEmail;
    case 'unverified':
      return w.unverified(reason.email);
    case 'not-allowed':
      return w.notAllowed(reason.email);
  }
}

function Refused(props: { language: PageLanguage; reason: (t: Messages) => string }) {
  const { language } = props;
  const w = language.t.signIn.oidc;
  return (
    <PublicPage title={w.refusedTitle} language={language}>
      <Notice kind="error">
        <span safe>{w.refused(props.reason(language.t))}</span>
      </Notice>
      <WholeLoad href={OIDC_START} text={w.again} />
    </PublicPage>
  );
}

function SignedIn(props: { language: PageLanguage; email: string }) {
  const { language } = props;
  const w = language.t.signIn.oidc;
  return (
    <PublicPage title={w.signedInTitle} language={language}>
      <p>
        {escapeHtml(w.signedInAs)} <strong safe>{props.email}</strong>.
      </p>
      <WholeLoad href={CONSOLE_AREA.home} text={w.open} />
    </PublicPage>
  );
}

const oidcLanguage = (req: Request, res: Response) => languageOf(req, res, CONSOLE_AREA);

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
    handler: (req, res, _next, options: Options) => {
      res.set('Retry-After', String(Math.ceil(options.windowMs / 1000)));
      void sendPage(
        res,
        <Refused language={oidcLanguage(req, res)} reason={(t) => t.signIn.oidc.tooMany} />,
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
  const unreachable = (req: Request, res: Response) =>
    sendPage(
      res,
      <Refused language={oidcLanguage(req, res)} reason={(t) => t.signIn.oidc.unreachable} />,
      502,
    );
  const log = throttledLog(deps.logger, 60_000);
  const limit = signInLimit(deps, log);

  router.get(OIDC_START, limit, async (req, res) => {
    let begun;
    try {
      begun = await provider.begin(deps.redis, flows, redirectUri);
    } catch {
      return unreachable(req, res);
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
      if (!(error instanceof OidcRefusal)) return unreachable(req, res);
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
      const { reason } = error;
      return sendPage(
        res,
        <Refused language={oidcLanguage(req, res)} reason={(t) => reasonWords(reason, t)} />,
        403,
      );
    }
    await beginSession(req);
    req.session.operator = { name: email };
    await recordOperatorAction(
      deps.db,
      { actor: email, source: 'console', address: req.ip ?? null },
      'console.sign-in',
      { target: 'oidc' },
    );
    await sendPage(res, <SignedIn language={oidcLanguage(req, res)} email={email} />);
  });
}
