// The partner's credentials: its client key, and rotating its client secret through the service
// the operator's CLI and console use (clients/clients.service.ts). Rotating ends every token of
// the client at once, on every gateway; the partner who rotated stays signed in to read the new
// secret.
import type { Request, Response, Router } from 'express';
import { CSRF_FIELD, csrfToken } from '../../pages/forms.js';
import { sendPage } from '../../pages/layout.js';
import { createClientSecrets } from '../clients/client-secrets.js';
import { applyClientAction } from '../clients/clients.service.js';
import { OutcomeNotice, type Outcome } from './outcome.js';
import { portalActor, PortalPage, portalClient } from './portal-page.js';
import { PORTAL } from './portal-paths.js';
import type { PortalDeps } from './portal-deps.js';
import { keepSessionAfterOwnChange } from './sign-in.routes.js';

const PAGE = `${PORTAL}/credentials`;

async function render(req: Request, res: Response, outcome?: Outcome) {
  const client = portalClient(res);
  await sendPage(
    res,
    <PortalPage req={req} res={res} title="Credentials" current={PAGE}>
      <OutcomeNotice outcome={outcome} />
      <dl class="secret">
        <dt>client_key</dt>
        <dd>
          <code safe>{client.client_key}</code>
        </dd>
      </dl>
      <section aria-labelledby="rotate-heading">
        <h2 id="rotate-heading">Rotate the client secret</h2>
        <p id="rotate-hint">
          A new secret is made and shown once. The old secret stops working at once, and so does
          every access and refresh token your client holds: request new tokens with the new secret.
        </p>
        <form method="post" action={`${PAGE}/rotate-secret`}>
          <input type="hidden" name={CSRF_FIELD} value={csrfToken(req)} />
          <button type="submit" class="warn" aria-describedby="rotate-hint">
            Rotate client secret
          </button>
        </form>
      </section>
    </PortalPage>,
  );
}

export function credentialsPage(router: Router, deps: PortalDeps): void {
  const clients = { ...deps, secrets: createClientSecrets(deps.config.secrets.keys) };

  router.get(PAGE, (req, res) => render(req, res));

  router.post(`${PAGE}/rotate-secret`, async (req, res) => {
    const { client_key } = portalClient(res);
    const done = await applyClientAction(
      clients,
      portalActor(req, res),
      'rotate-secret',
      client_key,
    );
    await keepSessionAfterOwnChange(req, res, deps.db);
    res.set('HX-Push-Url', PAGE);
    await render(req, res, {
      kind: 'secret',
      message: 'New client secret made; the old one and every token of your client have ended.',
      label: 'client_secret',
      secret: done.client_secret ?? '',
    });
  });
}
