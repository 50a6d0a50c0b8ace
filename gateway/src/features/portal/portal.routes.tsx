// /portal, a partner's pages for its own client (docs/decisions/0020-portal.md), served by the
// gateway on its own port and origin beside /console, on the same page pieces (pages/): its own
// session cookie, the form parser and the CSRF and Origin checks, for /portal paths only.
import { Router } from 'express';
import { assetRoutes } from '../../pages/assets.js';
import { areaEnd, pageLayers } from '../../pages/page-layers.js';
import { credentialsPage } from './credentials.page.js';
import { overviewPage } from './overview.page.js';
import { quickStartPage } from './quick-start.page.js';
import { PublicPortalPage } from './portal-page.js';
import { PORTAL, PORTAL_ASSETS } from './portal-paths.js';
import type { PortalDeps } from './portal-deps.js';
import { portalLimit } from './portal-limit.js';
import { partnerOnly, portalSignInRoutes } from './sign-in.routes.js';
import { usagePage } from './usage.page.js';
import { webhookPage } from './webhook.page.js';
import { webhooksPage } from './webhooks.page.js';

export function portalRoutes(deps: PortalDeps): Router {
  const router = Router();
  router.use(assetRoutes(PORTAL_ASSETS));
  router.use(
    PORTAL,
    pageLayers({
      redis: deps.redis,
      config: deps.config,
      name: 'portal',
      page: PublicPortalPage,
      area: router,
      home: PORTAL,
    }),
  );
  portalSignInRoutes(router, deps);
  router.use(PORTAL, partnerOnly(deps));
  router.use(PORTAL, portalLimit(deps));
  overviewPage(router, deps);
  quickStartPage(router, deps);
  usagePage(router, deps);
  webhooksPage(router, deps);
  webhookPage(router, deps);
  credentialsPage(router, deps);
  router.use(PORTAL, areaEnd(PublicPortalPage, PORTAL));
  return router;
}
