// What every area of pages (the console, the portal) runs in front of its routes, and only under
// its own path: in production a refusal of plain HTTP that says why, the referrer policy its
// forms need, its session, the form parser, the CSRF and Origin checks, and the 404 of a path none
// of its pages serves; and its end: the pages that answer an unknown path, a refused request or a
// failure in the area's frame.
import express, {
  Router,
  type ErrorRequestHandler,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { escapeHtml, type Children } from '@kitajs/html';
import type { Config } from '#common/config.js';
import type { RedisClient } from '#common/redis.js';
import { ForbiddenRequest, protectForms } from './forms.js';
import { recordRequestError } from '../http/access-log.js';
import type { PageLanguage } from './language.js';
import { Notice, sendPage } from './layout.js';
import { pageSessions } from './session.js';

/** The area's page without a session, in the request's language, for what the layers answer. */
type PublicPage = (props: {
  title: string;
  language: PageLanguage;
  children?: Children;
}) => JSX.Element;

/** The request's language, as the area chooses it (language.tsx). */
type LanguageOf = (req: Request, res: Response) => PageLanguage;

/** Forms are small: names, scopes, URLs, a few numbers. */
const FORM_LIMIT = '16kb';

/**
 * helmet's `no-referrer` makes a browser send `Origin: null` with a form's POST, which the Origin
 * check must refuse; `same-origin` sends the page's origin to its own site and nothing elsewhere.
 */
const referrerSameOrigin: RequestHandler = (_req, res, next) => {
  res.set('Referrer-Policy', 'same-origin');
  next();
};

/**
 * In production the session cookie is Secure: a browser keeps it only from an HTTPS page. Reached
 * over plain HTTP, or through a TLS proxy the gateway does not trust (TRUST_PROXY unset, so the
 * request looks like HTTP), nobody could stay signed in and every form would end in a bare 403
 * (no session, no CSRF token): every page of the area says why instead.
 */
function httpsNeeded(config: Config, Page: PublicPage, languageOf: LanguageOf): RequestHandler {
  return (req, res, next) => {
    if (!config.console.secureCookie || req.secure) return next();
    const language = languageOf(req, res);
    const { t } = language;
    void sendPage(
      res,
      <Page title={t.errors.httpsTitle} language={language}>
        <Notice kind="error">
          <span safe>{t.errors.https}</span>
        </Notice>
        <p>
          {escapeHtml(t.errors.proxy[0])} <code>TRUST_PROXY</code> {escapeHtml(t.errors.proxy[1])}
        </p>
      </Page>,
      403,
    );
  };
}

/** The area's 404 page, HTML in its frame; `home` is where it sends a lost visitor back to. */
function notFoundPage(Page: PublicPage, home: string, languageOf: LanguageOf): RequestHandler {
  return (req, res) => {
    const language = languageOf(req, res);
    const { t } = language;
    void sendPage(
      res,
      <Page title={t.errors.notFoundTitle} language={language}>
        <p>
          {escapeHtml(t.errors.notFound)}{' '}
          <a href={home} safe>
            {t.errors.backToStart}
          </a>
        </p>
      </Page>,
      404,
    );
  };
}

/** A route as router 2.3's listRoutes() gives it (express.Router; @types/express lacks it). */
interface ListedRoute {
  path: string | RegExp;
  /** Upper case, HEAD with GET, '*' for all; undefined for a mounted router. */
  methods: string[] | undefined;
}

/**
 * A router that lets on (`next('router')`) a request its area's routes serve, by path and
 * method, and answers any other with `notFound`. Its paths are the routes' own under `home`, made
 * relative to it: the area's layers are mounted there.
 */
function servedPaths(area: Router, home: string, notFound: RequestHandler): Router {
  const served = Router();
  const routes = (area as Router & { listRoutes(): ListedRoute[] }).listRoutes();
  for (const { path, methods } of routes) {
    const ours = typeof path === 'string' && (path === home || path.startsWith(`${home}/`));
    if (!ours || !methods) continue;
    served.all(path.slice(home.length) || '/', (req, _res, next) => {
      next(methods.includes('*') || methods.includes(req.method) ? 'router' : undefined);
    });
  }
  served.use(notFound);
  return served;
}

/**
 * A path none of the area's pages serves answers the area's 404 here, before its gate asks for a
 * session: a signed-out visitor is told there is no such page, and gets the sign-in page only for
 * one that exists. The routes are read at the first request: the pages register theirs after
 * these layers, while the area is made, before any request.
 */
function unknownPages(area: Router, home: string, Page: PublicPage, languageOf: LanguageOf) {
  let served: Router | undefined;
  const handler: RequestHandler = (req, res, next) => {
    served ??= servedPaths(area, home, notFoundPage(Page, home, languageOf));
    served(req, res, next);
  };
  return handler;
}

/**
 * The layers of an area's pages, mounted under its path `home` on its router `area`; `name` keeps
 * its sessions apart from every other area's, `page` is its page without a session, for what the
 * layers refuse.
 */
export function pageLayers(deps: {
  redis: RedisClient;
  config: Config;
  name: string;
  page: PublicPage;
  language: LanguageOf;
  area: Router;
  home: string;
}): RequestHandler[] {
  return [
    httpsNeeded(deps.config, deps.page, deps.language),
    referrerSameOrigin,
    pageSessions(deps),
    express.urlencoded({ extended: false, limit: FORM_LIMIT }),
    protectForms(deps.config),
    unknownPages(deps.area, deps.home, deps.page, deps.language),
  ];
}

/**
 * The end of an area's routes, after its pages: a request none of them answered (a page that
 * found no such record lets it on) answers the area's 404 page; a refused form (protectForms) its
 * 403 page; anything a page could not answer its 500 page, the error logged in the request's line
 * as the API's are. HTML in the area's frame, never the API's JSON. `home` is where the pages
 * send a lost visitor back to.
 */
export function areaEnd(
  Page: PublicPage,
  home: string,
  languageOf: LanguageOf,
): [RequestHandler, ErrorRequestHandler] {
  const notFound = notFoundPage(Page, home, languageOf);
  const failed: ErrorRequestHandler = (error, req, res, _next) => {
    const language = languageOf(req, res);
    const { t } = language;
    if (error instanceof ForbiddenRequest) {
      return void sendPage(
        res,
        <Page title={t.errors.refusedTitle} language={language}>
          <Notice kind="error">
            <span safe>{error.why === 'cross-site' ? t.errors.crossSite : t.errors.expired}</span>
          </Notice>
        </Page>,
        403,
      );
    }
    // A request that could not be read (a form over the size limit, a malformed path): its own
    // status, told plainly.
    const status = (error as { status?: unknown } | null)?.status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return void sendPage(
        res,
        <Page title={t.errors.unreadableTitle} language={language}>
          <Notice kind="error">
            <span safe>{t.errors.unreadable}</span>
          </Notice>
        </Page>,
        status,
      );
    }
    recordRequestError(res, error);
    if (res.headersSent) return void res.end();
    void sendPage(
      res,
      <Page title={t.errors.failedTitle} language={language}>
        <Notice kind="error">
          <span safe>{t.errors.failed}</span>
        </Notice>
        <p>
          <a href={home} safe>
            {t.errors.backToStart}
          </a>
        </p>
      </Page>,
      500,
    );
  };
  return [notFound, failed];
}
