// What the console's and the portal's pages may use, assembled once by app.ts (the composition
// root): no page makes a service or holds a connection of its own. Declared here, beside the
// features, so the declaration machinery (pages/page.tsx) knows no feature: every page is
// declared with this file's definePage, and every form's action with its area's action.
import type { Config } from '#common/config.js';
import type { Logger } from '#common/logger.js';
import type { ClientDeps } from './features/clients/clients.service.js';
import type { ErasureDeps } from './features/members/erasure.service.js';
import type { PortalLinkDeps } from './features/portal/portal-links.js';
import type { SandboxEvents } from './features/sandbox/sandbox.events.js';
import type { UsageServices } from './features/usage/usage.report.js';
import type { WebhookService } from './features/webhooks/webhooks.service.js';
import type { Actor, SignedInPartner } from './pages/areas.js';
import { actionDefinition, pageDefinition } from './pages/page.js';

/**
 * The read model (for the repositories), Redis and the deployment's key prefix, the client
 * services' epochs and secrets, the gateway's MySQL pool (erasures), the webhook and usage
 * services the API uses, and where links are made.
 */
export interface PageServices extends ClientDeps, ErasureDeps, PortalLinkDeps {
  config: Config;
  logger: Logger;
  webhooks: WebhookService;
  usage: UsageServices;
  /** Changes on demand in the sandbox's club (its quick start); undefined when SANDBOX is off. */
  sandboxEvents: SandboxEvents | undefined;
}

export const { definePage, defineDownload } = pageDefinition<PageServices>();

/** A form's action on a console page: its visitor is the signed-in operator. */
export const consoleAction = actionDefinition<PageServices, Actor>();

/** A form's action on a portal page: its visitor is the signed-in partner. */
export const portalAction = actionDefinition<PageServices, SignedInPartner>();
