// /console, the operator's pages (docs/decisions/0019-console.md), served by the gateway on its own
// port and origin. Every route has its full path (as the API's do, app.ts); the session, the form
// parser and the CSRF and Origin checks run for /console paths only, so the API's requests never
// meet them.
import { Router } from 'express';
import { assetRoutes } from '../../pages/assets.js';
import { CONSOLE_AREA } from '../../pages/areas.js';
import { mountPages } from '../../pages/page.js';
import { areaEnd, pageLayers } from '../../pages/page-layers.js';
import type { PageServices } from '../../page-services.js';
import { auditPage } from './audit.page.js';
import { membersPage } from './members.page.js';
import { clientEditPage } from './client-edit.page.js';
import { clientsPage } from './clients.page.js';
import { portalLinkPage } from './portal-link.page.js';
import { syncPage } from './sync.page.js';
import { usagePage } from './usage.page.js';
import { webhooksPage } from './webhooks.page.js';
import { CONSOLE, CONSOLE_ASSETS, PublicPage } from './console-page.js';
import { operatorOnly, signInRoutes } from './sign-in.routes.js';

/** The console's pages, declared with definePage (page-services.ts). */
const CONSOLE_PAGES = [auditPage, syncPage, usagePage];

export function consoleRoutes(deps: PageServices): Router {
  const router = Router();
  router.use(assetRoutes(CONSOLE_ASSETS));
  router.use(
    CONSOLE,
    pageLayers({
      redis: deps.redis,
      config: deps.config,
      name: 'console',
      page: PublicPage,
      area: router,
      home: CONSOLE,
    }),
  );
  const { secureCookie, publicOrigin } = deps.config.console;
  // Said once, at start: links made under an http:// origin lead to pages that refuse plain HTTP.
  if (secureCookie && publicOrigin.startsWith('http:'))
    deps.logger.warn(
      { public_base_url: publicOrigin },
      'PUBLIC_BASE_URL is not https: in production the console and portal need HTTPS (their cookies are Secure), so sign-in links made under it will not work',
    );
  signInRoutes(router, deps);
  router.use(CONSOLE, operatorOnly(deps.config));
  portalLinkPage(router, deps);
  // Before the clients page, whose POST /console/clients/:key/:action would take `edit` too.
  clientEditPage(router, deps);
  clientsPage(router, deps);
  webhooksPage(router, { db: deps.db, service: deps.webhooks });
  membersPage(router, deps);
  mountPages(router, CONSOLE_AREA, CONSOLE_PAGES, deps);
  router.use(CONSOLE, areaEnd(PublicPage, CONSOLE));
  return router;
}
