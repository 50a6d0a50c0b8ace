// The partner's credentials: its client key, rotating its client secret (at once, or with an
// overlap during which both secrets issue tokens) and ending an overlap early, through the
// services the operator's CLI uses (clients/clients.service.ts), recorded in the operator audit as
// the partner's own. Rotating at once ends every token of the client on every gateway; with an
// overlap, the old secret's tokens end when it does. The partner who rotated stays signed in.
import { z } from 'zod';
import { PORTAL, PORTAL_AREA } from '../../pages/areas.js';
import { PostForm } from '../../pages/layout.js';
import { definePage, portalAction } from '../../page-services.js';
import { previousSecretLives } from '../../trust/secret-overlap.js';
import { findClientById } from '../clients/clients.repository.js';
import { endPreviousSecretAs, rotateSecretAs } from '../clients/clients.service.js';

const PAGE = `${PORTAL}/credentials`;

/** The overlaps the page offers, all within the service's cap (MAX_SECRET_OVERLAP_MS). */
const OVERLAPS = {
  none: { label: 'None: the old secret ends now', ms: undefined },
  '1h': { label: '1 hour', ms: 3_600_000 },
  '24h': { label: '24 hours', ms: 86_400_000 },
} as const;
type Overlap = keyof typeof OVERLAPS;

function RotateForm() {
  return (
    <section aria-labelledby="rotate-heading">
      <h2 id="rotate-heading">Rotate the client secret</h2>
      <p id="rotate-hint">
        A new secret is made and shown once. Without an overlap the old secret stops working at
        once, and so does every access and refresh token your client holds. With one, both secrets
        issue tokens until the overlap ends; then the old secret and its tokens stop.
      </p>
      <PostForm action={`${PAGE}/rotate-secret`} class="stack">
        <fieldset>
          <legend>Overlap of the old secret</legend>
          {Object.entries(OVERLAPS).map(([value, o]) => (
            <label class="check">
              <input type="radio" name="overlap" value={value} checked={value === 'none'} />
              <span>{o.label}</span>
            </label>
          ))}
        </fieldset>
        <button type="submit" class="warn" aria-describedby="rotate-hint">
          Rotate client secret
        </button>
      </PostForm>
    </section>
  );
}

function OverlapRunning(props: { until: Date }) {
  return (
    <section aria-labelledby="overlap-heading">
      <h2 id="overlap-heading">Previous secret</h2>
      <p id="overlap-hint" safe>
        {`Your previous secret still issues tokens until ${props.until.toISOString()}. Ending it now stops it and the tokens it issued.`}
      </p>
      <PostForm action={`${PAGE}/end-previous-secret`}>
        <button type="submit" class="warn" aria-describedby="overlap-hint">
          End previous secret now
        </button>
      </PostForm>
    </section>
  );
}

/** The partner's subscriptions its rotation left disabled: it enables them after looking. */
const endedNote = (ids: readonly number[]) =>
  ids.length > 0
    ? ` Webhook subscriptions ${ids.join(', ')} were disabled because the credentials that made them ended: check their URLs on the Webhooks page and enable the ones that are yours.`
    : '';

export const credentialsPage = definePage({
  area: PORTAL_AREA,
  path: PAGE,
  title: 'Credentials',
  // Read now, not as the gate read it: the page may follow a rotation made by this very request.
  load: ({ services, who }) => findClientById(services.db, who.client.id),
  view: (client) => (
    <>
      <dl class="secret">
        <dt>client_key</dt>
        <dd>
          <code safe>{client.client_key}</code>
        </dd>
      </dl>
      <RotateForm />
      {previousSecretLives(client) ? <OverlapRunning until={client.previous_secret_until!} /> : ''}
    </>
  ),
  actions: [
    portalAction({
      path: '/rotate-secret',
      body: z.object({
        overlap: z.enum(Object.keys(OVERLAPS) as [Overlap, ...Overlap[]]).default('none'),
      }),
      // The partner who rotated stays signed in, to read the secret and to end the overlap.
      keepsSession: true,
      run: async ({ services, who, body }) => {
        const rotated = await rotateSecretAs(services, who.actor, who.client.client_key, {
          overlapMs: OVERLAPS[body.overlap].ms,
        });
        const until = rotated.previous_secret_until;
        return {
          kind: 'secret',
          message: `${
            until
              ? `New client secret made; the old one and its tokens work until ${until.toISOString()}.`
              : 'New client secret made; the old one and every token of your client have ended.'
          }${endedNote(rotated.subscriptions_disabled)} It is shown only this once: keep it now.`,
          shown: [['client_secret', rotated.client_secret]],
        };
      },
    }),
    portalAction({
      path: '/end-previous-secret',
      run: async ({ services, who }) => {
        const disabled = await endPreviousSecretAs(services, who.actor, who.client.client_key);
        return {
          kind: 'done',
          message: `The previous client secret and the tokens it issued have ended.${endedNote(disabled)}`,
        };
      },
    }),
  ],
});
