// /portal, a partner's pages for its own client (docs/decisions/0020-portal.md), served by the
// gateway on its own port and origin beside /console, as an area of the same kind
// (pages/areas.ts): its own session cookie, the form parser and the CSRF and Origin checks, for
// /portal paths only, and a limit on what a signed-in partner's posts and downloads may cost.
import type { Router } from 'express';
import { PORTAL_AREA } from '../../pages/areas.js';
import { areaRoutes } from '../../pages/page.js';
import type { PageServices } from '../../page-services.js';
import { credentialsPage } from './credentials.page.js';
import { overviewPage } from './overview.page.js';
import { personalDataPage } from './personal-data.page.js';
import { quickStartPage } from './quick-start.page.js';
import { portalLimit } from './portal-limit.js';
import { portalSignIn } from './sign-in.js';
import { usageDownload, usagePage } from './usage.page.js';
import { webhookPage } from './webhook.page.js';
import { webhooksPage } from './webhooks.page.js';

/**
 * The portal's pages, declared with definePage (page-services.ts): those with a `nav` entry are
 * its navigation, in this order (the quick start only for a sandbox client, its `only`).
 */
export const PORTAL_PAGES = [
  quickStartPage,
  overviewPage,
  usagePage,
  usageDownload,
  webhooksPage,
  webhookPage,
  credentialsPage,
  personalDataPage,
];

export function portalRoutes(services: PageServices): Router {
  return areaRoutes(PORTAL_AREA, {
    services,
    flow: portalSignIn(services),
    guarded: [portalLimit(services)],
    pages: PORTAL_PAGES,
  });
}
