// What every area of pages (the console, the portal) runs in front of its routes, and only under
// its own path: in production a refusal of plain HTTP that says why, the referrer policy its
// forms need, its session, the form parser, and the CSRF and Origin checks; and its end: the
// pages that answer an unknown path, a refused request or a failure in the area's frame.
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Component } from '@kitajs/html';
import type { Config } from '#common/config.js';
import type { RedisClient } from '#common/redis.js';
import { ForbiddenRequest, protectForms } from './forms.js';
import { recordRequestError } from '../http/access-log.js';
import { Notice, sendPage } from './layout.js';
import { pageSessions } from './session.js';

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
function httpsNeeded(config: Config, Page: Component<{ title: string }>): RequestHandler {
  return (req, res, next) => {
    if (!config.console.secureCookie || req.secure) return next();
    void sendPage(
      res,
      <Page title="HTTPS needed">
        <Notice kind="error">
          This page was reached over plain HTTP. In production its sign-in cookie is Secure, which a
          browser keeps only over HTTPS: open it at its https:// address.
        </Notice>
        <p>
          Behind a proxy or load balancer that ends TLS, set <code>TRUST_PROXY</code> on the
          gateway, so that it trusts the proxy's word (X-Forwarded-Proto) that the request came over
          HTTPS.
        </p>
      </Page>,
      403,
    );
  };
}

/**
 * The layers of an area's pages; `name` keeps its sessions apart from every other area's, `page`
 * is its page without a session, for what the layers refuse.
 */
export function pageLayers(deps: {
  redis: RedisClient;
  config: Config;
  name: string;
  page: Component<{ title: string }>;
}): RequestHandler[] {
  return [
    httpsNeeded(deps.config, deps.page),
    referrerSameOrigin,
    pageSessions(deps),
    express.urlencoded({ extended: false, limit: FORM_LIMIT }),
    protectForms(deps.config),
  ];
}

/**
 * The end of an area's routes, after its pages: a path none of them serves answers the area's 404
 * page; a refused form (protectForms) its 403 page; anything a page could not answer its 500 page,
 * the error logged in the request's line as the API's are. HTML in the area's frame, never the
 * API's JSON. `home` is where the pages send a lost visitor back to.
 */
export function areaEnd(
  Page: Component<{ title: string }>,
  home: string,
): [RequestHandler, ErrorRequestHandler] {
  const notFound: RequestHandler = (_req, res) =>
    void sendPage(
      res,
      <Page title="Not found">
        <p>
          There is no such page here. <a href={home}>Back to the start</a>.
        </p>
      </Page>,
      404,
    );
  const failed: ErrorRequestHandler = (error, _req, res, _next) => {
    if (error instanceof ForbiddenRequest) {
      return void sendPage(
        res,
        <Page title="Request refused">
          <Notice kind="error">
            <span safe>{`Refused: ${error.message}. Reload the page and try again.`}</span>
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
        <Page title="Request not understood">
          <Notice kind="error">The request could not be read. Go back and try again.</Notice>
        </Page>,
        status,
      );
    }
    recordRequestError(res, error);
    if (res.headersSent) return void res.end();
    void sendPage(
      res,
      <Page title="Something went wrong">
        <Notice kind="error">
          The page could not be shown. Try again in a moment; if it goes on, tell the operator.
        </Notice>
        <p>
          <a href={home}>Back to the start</a>
        </p>
      </Page>,
      500,
    );
  };
  return [notFound, failed];
}
