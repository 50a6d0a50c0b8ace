// The console's frame: its navigation and the layout every console page shares, and who the
// signed-in operator is for the services and the operator audit.
import type { Children } from '@kitajs/html';
import type { Request } from 'express';
import { renderedFor } from '../../pages/forms.js';
import { Layout } from '../../pages/layout.js';
import type { Operator } from '../operators/operator-audit.js';

export const CONSOLE = '/console';
export const CONSOLE_ASSETS = `${CONSOLE}/assets`;

const NAV = [
  { href: `${CONSOLE}/clients`, label: 'Clients' },
  { href: `${CONSOLE}/members`, label: 'Members' },
  { href: `${CONSOLE}/webhooks`, label: 'Webhooks' },
  { href: `${CONSOLE}/usage`, label: 'Usage' },
  { href: `${CONSOLE}/sync`, label: 'Sync health' },
  { href: `${CONSOLE}/audit`, label: 'Audit' },
] as const;

/** A page of a signed-in operator. */
export function ConsolePage(props: {
  req: Request;
  title: string;
  current: string;
  children?: Children;
}) {
  const name = props.req.session.operator?.name ?? '';
  return renderedFor(props.req, () => (
    <Layout
      title={props.title}
      area="Console"
      assets={CONSOLE_ASSETS}
      nav={NAV}
      current={props.current}
      signedIn={{ name, signOut: `${CONSOLE}/sign-out` }}
    >
      {props.children}
    </Layout>
  ));
}

/** A page with no session behind it: signing in, a refused link, a refused request. */
export function PublicPage(props: { title: string; children?: Children }) {
  return (
    <Layout title={props.title} area="Console" assets={CONSOLE_ASSETS}>
      {props.children}
    </Layout>
  );
}

/** The operator acting through this request (operatorOnly has checked the session). */
export function consoleOperator(req: Request): Operator {
  return {
    actor: req.session.operator?.name ?? 'unknown',
    source: 'console',
    address: req.ip ?? null,
  };
}
