// /console, the operator's pages (docs/decisions/0019-console.md), served by the gateway on its own
// port and origin: its area (pages/areas.ts) with its sign-in, the OpenID Connect routes when
// configured, and its pages. The session, the form parser and the CSRF and Origin checks run for
// /console paths only, so the API's requests never meet them.
import type { Router } from 'express';
import { CONSOLE_AREA } from '../../pages/areas.js';
import { areaRoutes } from '../../pages/page.js';
import type { PageServices } from '../../page-services.js';
import { auditPage } from './audit.page.js';
import { clientEditPage } from './client-edit.page.js';
import { clientsPage } from './clients.page.js';
import { membersPage } from './members.page.js';
import { oidcRoutes } from './oidc.routes.js';
import { consoleSignIn } from './sign-in.js';
import { syncPage } from './sync.page.js';
import { usagePage } from './usage.page.js';
import { deliveriesPage, webhooksPage } from './webhooks.page.js';

/**
 * The console's pages, declared with definePage (page-services.ts): those with a `nav` entry are
 * its navigation, in this order.
 */
export const CONSOLE_PAGES = [
  clientsPage,
  clientEditPage,
  membersPage,
  webhooksPage,
  deliveriesPage,
  usagePage,
  syncPage,
  auditPage,
];

export function consoleRoutes(services: PageServices): Router {
  const { secureCookie, publicOrigin } = services.config.console;
  // Said once, at start: links made under an http:// origin lead to pages that refuse plain HTTP.
  if (secureCookie && publicOrigin.startsWith('http:'))
    services.logger.warn(
      { public_base_url: publicOrigin },
      'PUBLIC_BASE_URL is not https: in production the console and portal need HTTPS (their cookies are Secure), so sign-in links made under it will not work',
    );
  return areaRoutes(CONSOLE_AREA, {
    services,
    flow: consoleSignIn(services),
    open: (router) => oidcRoutes(router, services),
    pages: CONSOLE_PAGES,
  });
}
