// /portal, a partner's pages for its own client (docs/decisions/0020-portal.md), served by the
// gateway on its own port and origin beside /console, on the same page pieces (pages/): its own
// session cookie, the form parser and the CSRF and Origin checks, for /portal paths only.
import { Router } from 'express';
import { assetRoutes } from '../../pages/assets.js';
import { PORTAL_AREA } from '../../pages/areas.js';
import { mountPages } from '../../pages/page.js';
import { areaEnd, pageLayers } from '../../pages/page-layers.js';
import type { PageServices } from '../../page-services.js';
import { credentialsPage } from './credentials.page.js';
import { overviewPage } from './overview.page.js';
import { PublicPortalPage } from './portal-page.js';
import { PORTAL, PORTAL_ASSETS } from './portal-paths.js';
import { portalLimit } from './portal-limit.js';
import { keepSessionAfterOwnChange, partnerOnly, portalSignInRoutes } from './sign-in.routes.js';
import { usageDownload, usagePage } from './usage.page.js';
import { webhookPage } from './webhook.page.js';
import { webhooksPage } from './webhooks.page.js';

/** The portal's pages, declared with definePage (page-services.ts), in any order. */
const PORTAL_PAGES = [
  overviewPage,
  usagePage,
  usageDownload,
  webhooksPage,
  webhookPage,
  credentialsPage,
];

export function portalRoutes(deps: PageServices): Router {
  const router = Router();
  router.use(assetRoutes(PORTAL_ASSETS));
  router.use(
    PORTAL,
    pageLayers({ redis: deps.redis, config: deps.config, name: 'portal', page: PublicPortalPage }),
  );
  portalSignInRoutes(router, deps);
  router.use(PORTAL, partnerOnly(deps));
  router.use(PORTAL, portalLimit(deps));
  mountPages(router, PORTAL_AREA, PORTAL_PAGES, deps, (req, who) =>
    keepSessionAfterOwnChange(req, who, deps.db),
  );
  router.use(PORTAL, areaEnd(PublicPortalPage, PORTAL));
  return router;
}
