// /console, the operator's pages (docs/decisions/0019-console.md), served by the gateway on its own
// port and origin. Every route has its full path (as the API's do, app.ts); the session, the form
// parser and the CSRF and Origin checks run for /console paths only, so the API's requests never
// meet them.
import express, { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Config } from '../../../../common/config.js';
import type { ReadModelClient } from '../../../../common/databases.js';
import type { RedisClient } from '../../../../common/redis.js';
import { assetRoutes } from '../../pages/assets.js';
import { ForbiddenRequest, protectForms } from '../../pages/forms.js';
import { Notice, sendPage } from '../../pages/layout.js';
import { pageSessions } from '../../pages/session.js';
import type { ClientEpochs } from '../../trust/client-epochs.js';
import { createClientSecrets } from '../../trust/client-secrets.js';
import { createWebhookService } from '../webhooks/webhooks.service.js';
import { auditPage } from './audit.page.js';
import { clientEditPage } from './client-edit.page.js';
import { clientsPage } from './clients.page.js';
import { syncPage } from './sync.page.js';
import { usagePage } from './usage.page.js';
import { webhooksPage } from './webhooks.page.js';
import { CONSOLE, CONSOLE_ASSETS, PublicPage } from './console-page.js';
import { operatorOnly, signInRoutes } from './sign-in.routes.js';

export interface ConsoleDeps {
  config: Config;
  db: ReadModelClient;
  redis: RedisClient;
  epochs: ClientEpochs;
}

/** Forms are small: names, scopes, a few numbers. */
const FORM_LIMIT = '16kb';

const refused: ErrorRequestHandler = (error, _req, res, next) => {
  if (!(error instanceof ForbiddenRequest)) return next(error);
  void sendPage(
    res,
    <PublicPage title="Request refused">
      <Notice kind="error">
        <span safe>{`Refused: ${error.message}. Reload the page and try again.`}</span>
      </Notice>
    </PublicPage>,
    403,
  );
};

/**
 * helmet's `no-referrer` makes a browser send `Origin: null` with a form's POST, which the Origin
 * check must refuse; `same-origin` sends the page's origin to its own site and nothing elsewhere.
 */
const referrerSameOrigin: RequestHandler = (_req, res, next) => {
  res.set('Referrer-Policy', 'same-origin');
  next();
};

export function consoleRoutes(deps: ConsoleDeps): Router {
  const router = Router();
  router.use(assetRoutes(CONSOLE_ASSETS));
  router.use(
    CONSOLE,
    referrerSameOrigin,
    pageSessions({ redis: deps.redis, config: deps.config, name: 'console' }),
    express.urlencoded({ extended: false, limit: FORM_LIMIT }),
    protectForms(deps.config),
  );
  signInRoutes(router, deps);
  router.use(CONSOLE, operatorOnly(deps.config));
  const clientDeps = { ...deps, secrets: createClientSecrets(deps.config.secrets.keys) };
  // Before the clients page, whose POST /console/clients/:key/:action would take `edit` too.
  clientEditPage(router, clientDeps);
  clientsPage(router, clientDeps);
  webhooksPage(router, { db: deps.db, service: createWebhookService(deps.db, deps.config) });
  usagePage(router, deps);
  syncPage(router, deps);
  auditPage(router, deps);
  router.use(CONSOLE, refused);
  return router;
}
