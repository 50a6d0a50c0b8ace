// The partner's credentials: its client key, rotating its client secret (at once, or with an
// overlap during which both secrets issue tokens) and ending an overlap early, through the
// services the operator's CLI uses (clients/clients.service.ts), recorded in the operator audit as
// the partner's own. Rotating at once ends every token of the client on every gateway; with an
// overlap, the old secret's tokens end when it does. The partner who rotated stays signed in.
import { z } from 'zod';
import { PORTAL, PORTAL_AREA } from '../../pages/areas.js';
import { Check, FormSection } from '../../pages/form-parts.js';
import { pageWords } from '../../pages/page-words.js';
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

const words = pageWords({
  en: {
    nav: 'Credentials',
    title: 'Credentials',
    overlaps: { none: 'None: the old secret ends now', '1h': '1 hour', '24h': '24 hours' },
    rotateHeading: 'Rotate the client secret',
    rotateHint:
      'A new secret is made and shown once. Without an overlap the old secret stops working at once, and so does every access and refresh token your client holds. With one, both secrets issue tokens until the overlap ends; then the old secret and its tokens stop.',
    overlapLegend: 'Overlap of the old secret',
    rotate: 'Rotate client secret',
    previous: 'Previous secret',
    previousUntil: (until: string) =>
      `Your previous secret still issues tokens until ${until}. Ending it now stops it and the tokens it issued.`,
    endPrevious: 'End previous secret now',
    endedNote: (ids: string) =>
      `Webhook subscriptions ${ids} were disabled because the credentials that made them ended: check their URLs on the Webhooks page and enable the ones that are yours.`,
    rotatedUntil: (until: string) =>
      `New client secret made; the old one and its tokens work until ${until}.`,
    rotatedNow: 'New client secret made; the old one and every token of your client have ended.',
    previousEnded: 'The previous client secret and the tokens it issued have ended.',
  },
  tr: {
    nav: 'Kimlik bilgileri',
    title: 'Kimlik bilgileri',
    overlaps: { none: 'Yok: eski anahtar hemen sona erer', '1h': '1 saat', '24h': '24 saat' },
    rotateHeading: 'İstemci gizli anahtarını yenile',
    rotateHint:
      'Yeni bir gizli anahtar oluşturulur ve bir kez gösterilir. Geçiş süresi olmadan eski anahtar hemen çalışmaz olur; istemcinizin tüm erişim ve yenileme belirteçleri de. Geçiş süresiyle iki anahtar da süre bitene kadar belirteç alır; ardından eski anahtar ve belirteçleri sona erer.',
    overlapLegend: 'Eski anahtarın geçiş süresi',
    rotate: 'İstemci gizli anahtarını yenile',
    previous: 'Önceki gizli anahtar',
    previousUntil: (until) =>
      `Önceki gizli anahtarınız ${until} tarihine kadar belirteç almaya devam ediyor. Şimdi sonlandırırsanız o ve aldığı belirteçler sona erer.`,
    endPrevious: 'Önceki anahtarı şimdi sonlandır',
    endedNote: (ids) =>
      `${ids} numaralı webhook abonelikleri, onları oluşturan kimlik bilgileri sona erdiği için devre dışı bırakıldı: Webhook'lar sayfasında URL’lerini kontrol edip size ait olanları etkinleştirin.`,
    rotatedUntil: (until) =>
      `Yeni istemci gizli anahtarı oluşturuldu; eskisi ve belirteçleri ${until} tarihine kadar çalışır.`,
    rotatedNow:
      'Yeni istemci gizli anahtarı oluşturuldu; eskisi ve istemcinizin tüm belirteçleri sona erdi.',
    previousEnded: 'Önceki istemci gizli anahtarı ve aldığı belirteçler sona erdi.',
  },
});
type OwnWords = ReturnType<typeof words>;

function RotateForm(props: { w: OwnWords }) {
  const { w } = props;
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

function OverlapRunning(props: { until: string; w: OwnWords }) {
  const { w } = props;
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
const endedNote = (w: OwnWords, ids: readonly number[]) =>
  ids.length > 0 ? ` ${w.endedNote(ids.join(', '))}` : '';

export const credentialsPage = definePage({
  area: PORTAL_AREA,
  path: PAGE,
  title: (language) => words(language).title,
  nav: (language) => words(language).nav,
  // Read now, not as the gate read it: the page may follow a rotation made by this very request.
  load: ({ services, who }) => findClientById(services.db, who.client.id),
  view: (client, { format, locale }) => {
    const w = words({ locale });
    return (
      <>
        <dl class="secret">
          <dt>client_key</dt>
          <dd>
            <code safe>{client.client_key}</code>
          </dd>
        </dl>
        <RotateForm w={w} />
        {previousSecretLives(client) ? (
          <OverlapRunning until={format.moment(client.previous_secret_until!)} w={w} />
        ) : (
          ''
        )}
      </>
    );
  },
  actions: [
    portalAction({
      path: '/rotate-secret',
      body: z.object({
        overlap: z.enum(Object.keys(OVERLAPS) as [Overlap, ...Overlap[]]).default('none'),
      }),
      // The partner who rotated stays signed in, to read the secret and to end the overlap.
      keepsSession: true,
      run: async ({ services, who, body, t, format, locale }) => {
        const rotated = await rotateSecretAs(services, who.actor, who.client.client_key, {
          overlapMs: OVERLAPS[body.overlap],
        });
        const until = rotated.previous_secret_until;
        const w = words({ locale });
        return {
          kind: 'secret',
          message: `${
            until ? w.rotatedUntil(format.moment(until)) : w.rotatedNow
          }${endedNote(w, rotated.subscriptions_disabled)} ${t.outcome.shownOnce}`,
          shown: [['client_secret', rotated.client_secret]],
        };
      },
    }),
    portalAction({
      path: '/end-previous-secret',
      run: async ({ services, who, locale }) => {
        const disabled = await endPreviousSecretAs(services, who.actor, who.client.client_key);
        const w = words({ locale });
        return {
          kind: 'done',
          message: `${w.previousEnded}${endedNote(w, disabled)}`,
        };
      },
    }),
  ],
});
