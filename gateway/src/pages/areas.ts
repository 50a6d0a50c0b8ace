// The two areas of pages the gateway serves beside its API: the operator's console
// (docs/decisions/0019-console.md) and a partner's portal (docs/decisions/0020-portal.md). Each is
// described once here: where it lives, its session, its frame and navigation, where a signed-in
// visitor lands and a lost one is sent back to. pages/page.tsx mounts an area from this: its
// layers (page-layers.tsx), its sign-in and gate (sign-in.tsx), its declared pages and its end
// (areaEnd: its own 404, 4xx and 500 pages). Its navigation is its pages' (features/<area>/
// <area>.routes.tsx lists them in its order), then its `links`.
import type { Credentials } from '#api/webhooks/credentials.js';

import type { SessionData } from 'express-session';
import { clubOf } from '#api/sandbox.js';
import type { Words } from './language.js';
import type { Locale } from './locale.js';

export interface NavLink {
  href: string;
  /** Its words in the request's language. */
  label: (words: Words) => string;
  /** A page outside the area (its own scripts): a whole page load, not htmx's swap. */
  leavesArea?: boolean;
}

/** A signed-in visitor, as the frame shows it: who, and the navigation it may follow. */
export interface Visitor<W> {
  who: W;
  nav: readonly NavLink[];
}

/**
 * Who acts through a console or portal page, as the operator audit records it (the features'
 * Operator: features/operators/operator-audit.ts).
 */
export interface Actor {
  actor: string;
  source: 'console' | 'portal';
  /** The browser's address (behind a trusted proxy, the one it forwarded). */
  address: string | null;
}

/** The signed-in partner's client, as the portal's gate read it for this request. */
export interface PartnerClient {
  id: number;
  client_key: string;
  name: string;
  scopes: string[];
  /** The classes of members' personal data it receives (api/data-classes.ts). */
  data_classes: string[];
  branch_id: number | null;
  rate_limit_minute: number | null;
  rate_limit_hour: number | null;
  rate_limit_day: number | null;
}

/**
 * A signed-in partner: its client, itself as the audit names it, and the credentials its session
 * began under (the client's token generation and secret version then, pages/session.ts).
 */
export interface SignedInPartner {
  client: PartnerClient;
  actor: Actor;
  credentials: Credentials;
}

/** An area of pages; `W` is who its gate lets in (an operator, a partner). */
export interface Area<W> {
  /** Every path of the area starts with it; a signed-out visitor is sent to it. */
  prefix: '/console' | '/portal';
  /**
   * Its session: the cookie's and Redis keys' name (pages/session.ts), which keeps it apart from
   * the other area's, and the session's field that says who signed in.
   */
  session: { name: 'console' | 'portal'; holder: 'operator' | 'partner' };
  /**
   * The language of its signed-in pages when the visitor chose none; without it, the browser's
   * (pages/language.tsx). The area's name and its ended-session words are the catalogue's, under
   * its session's name.
   */
  locale?: Locale;
  /** Where its assets are served (pages/assets.ts). */
  assets: string;
  /** Where a signed-in visitor lands; the 404 and 500 pages lead back to the area's start. */
  home: string;
  /** Where the signed-in session's holder lands instead of `home`, when it depends on it. */
  landing?: (session: Partial<SessionData>) => string | undefined;
  /** The navigation's entries after its pages': places outside the area. */
  links?: readonly NavLink[];
  /** The name the frame shows beside the sign-out button. */
  nameOf: (who: W) => string;
}

export const CONSOLE = '/console';
export const PORTAL = '/portal';
/** A sandbox client's first page in the portal. */
export const QUICK_START = `${PORTAL}/quick-start`;

const isSandboxKey = (key: string) => clubOf(key) === 'sandbox';

export const CONSOLE_AREA: Area<Actor> = {
  prefix: CONSOLE,
  session: { name: 'console', holder: 'operator' },
  // The club's staff read Turkish, as the API speaks to them (docs/decisions/0025-page-languages.md).
  locale: 'tr',
  assets: `${CONSOLE}/assets`,
  home: `${CONSOLE}/clients`,
  nameOf: (operator) => operator.actor,
};

export const PORTAL_AREA: Area<SignedInPartner> = {
  prefix: PORTAL,
  session: { name: 'portal', holder: 'partner' },
  assets: `${PORTAL}/assets`,
  home: `${PORTAL}/overview`,
  // A sandbox client starts on its quick start (features/portal/quick-start.page.tsx).
  landing: ({ partner }) => (partner && isSandboxKey(partner.clientKey) ? QUICK_START : undefined),
  links: [{ href: '/api/v1/docs', label: ({ t }) => t.nav.apiDocs, leavesArea: true }],
  nameOf: (partner) => partner.client.name,
};
