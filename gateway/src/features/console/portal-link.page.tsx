// The console's portal link for a client's partner: the button beside each active client, and the
// page that shows the link this once. The same service makes it as `npm run clients --
// portal-link` (portal/portal-links.ts).
import type { Router } from 'express';
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import type { RedisClient } from '#common/redis.js';
import { CSRF_FIELD } from '../../pages/forms.js';
import { Notice, sendPage } from '../../pages/layout.js';
import { OperatorRefusal } from '../../cli/operator-refusal.js';
import { makePortalLink } from '../portal/portal-links.js';
import { CONSOLE, ConsolePage, consoleOperator } from './console-page.js';

const CLIENTS = `${CONSOLE}/clients`;
const TTL_MS = 15 * 60_000;

const actionOf = (clientKey: string) => `${CLIENTS}/${encodeURIComponent(clientKey)}/portal-link`;

export function PortalLinkForm(props: { clientKey: string; name: string; csrf: string }) {
  return (
    <form method="post" action={actionOf(props.clientKey)}>
      <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
      <button type="submit" aria-label={`Portal link: ${props.name}`}>
        Portal link
      </button>
    </form>
  );
}

/** Stated here, as the console's other pages state theirs: console.routes.tsx imports this page. */
interface PortalLinkDeps {
  config: Config;
  db: ReadModelClient;
  redis: RedisClient;
}

export function portalLinkPage(router: Router, deps: PortalLinkDeps): void {
  router.post(`${CLIENTS}/:key/portal-link`, async (req, res) => {
    const clientKey = req.params.key;
    const linkDeps = {
      db: deps.db,
      redis: deps.redis,
      prefix: deps.config.redis.prefix,
      secretsKeys: deps.config.secrets.keys,
      publicOrigin: deps.config.console.publicOrigin,
    };
    let body: JSX.Element;
    let status = 200;
    try {
      const link = await makePortalLink(linkDeps, consoleOperator(req), clientKey, TTL_MS);
      body = (
        <Notice kind="done" secret>
          <p
            safe
          >{`Send this link to the partner of ${clientKey}. It opens their portal once, until ${link.expiresAt.toISOString()}; it is shown only this once.`}</p>
          <p>
            <code safe>{link.url}</code>
          </p>
        </Notice>
      );
    } catch (error) {
      if (!(error instanceof OperatorRefusal)) throw error;
      status = 400;
      body = (
        <Notice kind="error">
          <span safe>{error.message}</span>
        </Notice>
      );
    }
    res.set('HX-Push-Url', CLIENTS);
    await sendPage(
      res,
      <ConsolePage req={req} title="Portal link" current={CLIENTS}>
        {body}
        <p>
          <a href={CLIENTS}>Back to the clients</a>
        </p>
      </ConsolePage>,
      status,
    );
  });
}
