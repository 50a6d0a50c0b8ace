// The portal's frame: its navigation, the layout every portal page shares with the console's
// (pages/layout.tsx), and the partner behind a request, for the services and the operator audit.
import type { Children } from '@kitajs/html';
import type { Request, Response } from 'express';
import { renderedFor } from '../../pages/forms.js';
import { Layout } from '../../pages/layout.js';
import { currentScopes } from '#api/scopes.js';
import { clubOf } from '#api/sandbox.js';
import type { Operator } from '../operators/operator-audit.js';
import type { Partner } from '../webhooks/webhooks.service.js';
import { PORTAL, PORTAL_ASSETS } from './portal-paths.js';

const NAV = [
  { href: `${PORTAL}/overview`, label: 'Overview' },
  { href: `${PORTAL}/usage`, label: 'Usage' },
  { href: `${PORTAL}/webhooks`, label: 'Webhooks' },
  { href: `${PORTAL}/credentials`, label: 'Credentials' },
  { href: '/api/v1/docs', label: 'API documentation', leavesArea: true },
] as const;

/** A sandbox client's first page (quick-start.page.tsx). */
const QUICK_START_LINK = { href: `${PORTAL}/quick-start`, label: 'Quick start' };

/** The signed-in partner's client, as partnerOnly found it on this request. */
export interface PortalClient {
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

export function portalClient(res: Response): PortalClient {
  return res.locals.portalClient as PortalClient;
}

/** A page of a signed-in partner. */
export function PortalPage(props: {
  req: Request;
  res: Response;
  title: string;
  current: string;
  children?: Children;
}) {
  const client = portalClient(props.res);
  return renderedFor(props.req, () => (
    <Layout
      title={props.title}
      area="Partner portal"
      assets={PORTAL_ASSETS}
      nav={clubOf(client.client_key) === 'sandbox' ? [QUICK_START_LINK, ...NAV] : NAV}
      current={props.current}
      signedIn={{ name: client.name, signOut: `${PORTAL}/sign-out` }}
    >
      {props.children}
    </Layout>
  ));
}

/** A page with no session behind it: signing in, a refused link, a refused request. */
export function PublicPortalPage(props: { title: string; children?: Children }) {
  return (
    <Layout title={props.title} area="Partner portal" assets={PORTAL_ASSETS}>
      {props.children}
    </Layout>
  );
}

/** The partner acting through this request, as the operator audit records it. */
export function portalActor(req: Request, res: Response): Operator {
  return {
    actor: `partner ${portalClient(res).client_key}`,
    source: 'portal',
    address: req.ip ?? null,
  };
}

/**
 * The signed-in partner as the webhook service sees a caller: with the credentials its session
 * began under (pages/session.ts), which a subscription it creates, moves or enables records.
 */
export function partnerCaller(req: Request, res: Response): Partner {
  const partner = req.session.partner;
  // partnerOnly let the request in with its session's partner.
  if (!partner) throw new Error('a portal page reached without a partner session');
  return {
    ...callerOf(portalClient(res)),
    credentials: { generation: partner.generation, secretVersion: partner.secretVersion },
    clientKey: portalClient(res).client_key,
    actor: portalActor(req, res),
  };
}

/** The client as the API's services see a caller: its id, scopes and limits. */
export const callerOf = (client: PortalClient) => ({
  clientId: client.id,
  scopes: currentScopes(client),
  rateLimits: {
    minute: client.rate_limit_minute,
    hour: client.rate_limit_hour,
    day: client.rate_limit_day,
  },
});
