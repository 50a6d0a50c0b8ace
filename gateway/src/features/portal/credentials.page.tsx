// The partner's credentials: its client key, rotating its client secret (at once, or with an
// overlap during which both secrets issue tokens) and ending an overlap early, through the
// services the operator's CLI uses (clients/clients.service.ts), recorded in the operator audit as
// the partner's own. Rotating at once ends every token of the client on every gateway; with an
// overlap, the old secret's tokens end when it does. The partner who rotated stays signed in.
import { z } from 'zod';
import { PORTAL, PORTAL_AREA } from '../../pages/areas.js';
import { Check, FormSection } from '../../pages/form-parts.js';
import type { Messages } from '../../pages/messages/index.js';
import { definePage, portalAction } from '../../page-services.js';
import { previousSecretLives } from '../../trust/secret-overlap.js';
import { findClientById } from '../clients/clients.repository.js';
import { endPreviousSecretAs, rotateSecretAs } from '../clients/clients.service.js';

const PAGE = `${PORTAL}/credentials`;

/** The overlaps the page offers, all within the service's cap (MAX_SECRET_OVERLAP_MS). */
const OVERLAPS = {
  none: undefined,
  '1h': 3_600_000,
  '24h': 86_400_000,
} as const;
type Overlap = keyof typeof OVERLAPS;

function RotateForm(props: { t: Messages }) {
  const w = props.t.credentials;
  return (
    <FormSection
      id="rotate"
      heading={w.rotateHeading}
      hint={w.rotateHint}
      action={`${PAGE}/rotate-secret`}
    >
      <fieldset>
        <legend safe>{w.overlapLegend}</legend>
        {(Object.keys(OVERLAPS) as Overlap[]).map((value) => (
          <Check
            type="radio"
            name="overlap"
            value={value}
            label={w.overlaps[value]}
            checked={value === 'none'}
          />
        ))}
      </fieldset>
      <button type="submit" class="warn" aria-describedby="rotate-hint" safe>
        {w.rotate}
      </button>
    </FormSection>
  );
}

function OverlapRunning(props: { until: string; t: Messages }) {
  const w = props.t.credentials;
  return (
    <FormSection
      id="overlap"
      heading={w.previous}
      hint={w.previousUntil(props.until)}
      action={`${PAGE}/end-previous-secret`}
    >
      <button type="submit" class="warn" aria-describedby="overlap-hint" safe>
        {w.endPrevious}
      </button>
    </FormSection>
  );
}

/** The partner's subscriptions its rotation left disabled: it enables them after looking. */
const endedNote = (t: Messages, ids: readonly number[]) =>
  ids.length > 0 ? ` ${t.credentials.endedNote(ids.join(', '))}` : '';

export const credentialsPage = definePage({
  area: PORTAL_AREA,
  path: PAGE,
  title: ({ t }) => t.credentials.title,
  nav: ({ t }) => t.nav.credentials,
  // Read now, not as the gate read it: the page may follow a rotation made by this very request.
  load: ({ services, who }) => findClientById(services.db, who.client.id),
  view: (client, { t, format }) => (
    <>
      <dl class="secret">
        <dt>client_key</dt>
        <dd>
          <code safe>{client.client_key}</code>
        </dd>
      </dl>
      <RotateForm t={t} />
      {previousSecretLives(client) ? (
        <OverlapRunning until={format.moment(client.previous_secret_until!)} t={t} />
      ) : (
        ''
      )}
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
      run: async ({ services, who, body, t, format }) => {
        const rotated = await rotateSecretAs(services, who.actor, who.client.client_key, {
          overlapMs: OVERLAPS[body.overlap],
        });
        const until = rotated.previous_secret_until;
        const w = t.credentials;
        return {
          kind: 'secret',
          message: `${
            until ? w.rotatedUntil(format.moment(until)) : w.rotatedNow
          }${endedNote(t, rotated.subscriptions_disabled)} ${t.outcome.shownOnce}`,
          shown: [['client_secret', rotated.client_secret]],
        };
      },
    }),
    portalAction({
      path: '/end-previous-secret',
      run: async ({ services, who, t }) => {
        const disabled = await endPreviousSecretAs(services, who.actor, who.client.client_key);
        return {
          kind: 'done',
          message: `${t.credentials.previousEnded}${endedNote(t, disabled)}`,
        };
      },
    }),
  ],
});
