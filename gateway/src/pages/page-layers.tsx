// What every area of pages (the console, the portal) runs in front of its routes, and only under
// its own path: the referrer policy its forms need, its session, the form parser, and the CSRF
// and Origin checks; and its end: the pages that answer an unknown path, a refused request or a
// failure in the area's frame.
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

/** The layers of an area's pages; `name` keeps its sessions apart from every other area's. */
export function pageLayers(deps: {
  redis: RedisClient;
  config: Config;
  name: string;
}): RequestHandler[] {
  return [
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
