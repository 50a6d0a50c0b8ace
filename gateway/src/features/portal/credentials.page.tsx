// The partner's credentials: its client key, rotating its client secret (at once, or with an
// overlap during which both secrets issue tokens) and ending an overlap early, through the
// services the operator's CLI uses (clients/clients.service.ts), recorded in the operator audit as
// the partner's own. Rotating at once ends every token of the client on every gateway; with an
// overlap, the old secret's tokens end when it does. The partner who rotated stays signed in.
import type { Request, Response, Router } from 'express';
import { validationError } from '../../http/errors.js';
import { CSRF_FIELD, csrfToken } from '../../pages/forms.js';
import { sendPage } from '../../pages/layout.js';
import { previousSecretLives } from '../../trust/secret-overlap.js';
import { endPreviousSecretAs, rotateSecretAs } from '../clients/clients.service.js';
import { OutcomeNotice, refusedOr, type Outcome } from './outcome.js';
import { portalActor, PortalPage, portalClient } from './portal-page.js';
import { PORTAL } from './portal-paths.js';
import type { PortalDeps } from './portal-deps.js';
import { keepSessionAfterOwnChange } from './sign-in.routes.js';

const PAGE = `${PORTAL}/credentials`;

/** The overlaps the page offers, all within the service's cap (MAX_SECRET_OVERLAP_MS). */
const OVERLAPS = [
  { value: 'none', label: 'None: the old secret ends now', ms: undefined },
  { value: '1h', label: '1 hour', ms: 3_600_000 },
  { value: '24h', label: '24 hours', ms: 86_400_000 },
] as const;

function RotateForm(props: { csrf: string }) {
  return (
    <section aria-labelledby="rotate-heading">
      <h2 id="rotate-heading">Rotate the client secret</h2>
      <p id="rotate-hint">
        A new secret is made and shown once. Without an overlap the old secret stops working at
        once, and so does every access and refresh token your client holds. With one, both secrets
        issue tokens until the overlap ends; then the old secret and its tokens stop.
      </p>
      <form method="post" action={`${PAGE}/rotate-secret`} class="stack">
        <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
        <fieldset>
          <legend>Overlap of the old secret</legend>
          {OVERLAPS.map((o) => (
            <label class="check">
              <input type="radio" name="overlap" value={o.value} checked={o.value === 'none'} />
              <span>{o.label}</span>
            </label>
          ))}
        </fieldset>
        <button type="submit" class="warn" aria-describedby="rotate-hint">
          Rotate client secret
        </button>
      </form>
    </section>
  );
}

function OverlapRunning(props: { until: Date; csrf: string }) {
  return (
    <section aria-labelledby="overlap-heading">
      <h2 id="overlap-heading">Previous secret</h2>
      <p id="overlap-hint" safe>
        {`Your previous secret still issues tokens until ${props.until.toISOString()}. Ending it now stops it and the tokens it issued.`}
      </p>
      <form method="post" action={`${PAGE}/end-previous-secret`}>
        <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
        <button type="submit" class="warn" aria-describedby="overlap-hint">
          End previous secret now
        </button>
      </form>
    </section>
  );
}

async function render(
  req: Request,
  res: Response,
  deps: PortalDeps,
  outcome?: Outcome,
  status = 200,
) {
  const client = portalClient(res);
  // Read now: the page may follow a rotation made by this very request.
  const secret = await deps.db.apiClient.findUniqueOrThrow({
    where: { id: client.id },
    select: { secret_version: true, previous_secret_until: true },
  });
  const csrf = csrfToken(req);
  res.set('HX-Push-Url', PAGE);
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
      <RotateForm csrf={csrf} />
      {previousSecretLives(secret) ? (
        <OverlapRunning until={secret.previous_secret_until!} csrf={csrf} />
      ) : (
        ''
      )}
    </PortalPage>,
    status,
  );
}

/** The partner's subscriptions its rotation left disabled: it enables them after looking. */
const endedNote = (ids: readonly number[]) =>
  ids.length > 0
    ? ` Webhook subscriptions ${ids.join(', ')} were disabled because the credentials that made them ended: check their URLs on the Webhooks page and enable the ones that are yours.`
    : '';

function overlapOf(value: unknown): number | undefined {
  const chosen = OVERLAPS.find((o) => o.value === (value ?? 'none'));
  if (!chosen) {
    throw validationError([{ field: 'overlap', message: OVERLAPS.map((o) => o.value).join(', ') }]);
  }
  return chosen.ms;
}

export function credentialsPage(router: Router, deps: PortalDeps): void {
  router.get(PAGE, (req, res) => render(req, res, deps));

  router.post(`${PAGE}/rotate-secret`, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const [outcome, status] = await refusedOr(async (): Promise<Outcome> => {
      const overlapMs = overlapOf(body.overlap);
      const rotated = await rotateSecretAs(
        deps,
        portalActor(req, res),
        portalClient(res).client_key,
        { overlapMs },
      );
      await keepSessionAfterOwnChange(req, res, deps.db);
      const until = rotated.previous_secret_until;
      return {
        kind: 'secret',
        message:
          (until
            ? `New client secret made; the old one and its tokens work until ${until.toISOString()}.`
            : 'New client secret made; the old one and every token of your client have ended.') +
          endedNote(rotated.subscriptions_disabled),
        label: 'client_secret',
        secret: rotated.client_secret,
      };
    });
    await render(req, res, deps, outcome, status);
  });

  router.post(`${PAGE}/end-previous-secret`, async (req, res) => {
    const disabled = await endPreviousSecretAs(
      deps,
      portalActor(req, res),
      portalClient(res).client_key,
    );
    await render(req, res, deps, {
      kind: 'done',
      message: `The previous client secret and the tokens it issued have ended.${endedNote(disabled)}`,
    });
  });
}
