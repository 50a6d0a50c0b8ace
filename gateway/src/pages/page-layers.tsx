// What every area of pages (the console, the portal) runs in front of its routes, and only under
// its own path: the referrer policy its forms need, its session, the form parser, and the CSRF
// and Origin checks; and the page that answers a request those checks refused.
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Component } from '@kitajs/html';
import type { Config } from '#common/config.js';
import type { RedisClient } from '#common/redis.js';
import { ForbiddenRequest, protectForms } from './forms.js';
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

/** Answers a request protectForms refused (403) with the area's own page. */
export function refusedWith(Page: Component<{ title: string }>): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (!(error instanceof ForbiddenRequest)) return next(error);
    void sendPage(
      res,
      <Page title="Request refused">
        <Notice kind="error">
          <span safe>{`Refused: ${error.message}. Reload the page and try again.`}</span>
        </Notice>
      </Page>,
      403,
    );
  };
}
