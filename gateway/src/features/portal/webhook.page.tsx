// One of the partner's webhook subscriptions: its tries with the status, duration and answer its
// endpoint gave (shown as text, never rendered), filterable by outcome; sending it a test event,
// editing it (PATCH /webhooks/{id}'s rules, through the service's `update`), replaying its events
// since a time, rotating its signing secret, enabling it. Another client's subscription is not
// found.
import { z } from 'zod';
import { DELIVERY_OUTCOMES, type DeliveryOutcome } from '#api/webhooks/vocabulary.js';
import { CREDENTIALS_ENDED } from '#api/webhooks/credentials.js';
import { notFound } from '../../http/errors.js';
import { PORTAL_AREA, type PartnerClient } from '../../pages/areas.js';
import { formOf, positiveId } from '../../pages/fields.js';
import { Choice, Filters } from '../../pages/filters.js';
import { Check, Field, FormSection } from '../../pages/form-parts.js';
import { PostForm } from '../../pages/layout.js';
import type { Locale } from '../../pages/locale.js';
import type { Messages } from '../../pages/messages/index.js';
import type { Outcome } from '../../pages/outcome.js';
import { pageWords } from '../../pages/page-words.js';
import { stateOf, TRIES_SHOWN, SubscriptionTries } from '../../pages/webhook-tries.js';
import { definePage, portalAction } from '../../page-services.js';
import { eventTypesFor } from '../webhooks/webhooks.event-types.js';
import { updateBody } from '../webhooks/webhooks.schemas.js';
import type { WebhookService } from '../webhooks/webhooks.service.js';
import { partnerOf } from './partner.js';
import { MANAGES_WEBHOOKS, shownOnce, SubscriptionFields, WEBHOOKS } from './webhooks.page.js';

const words = pageWords({
  en: {
    title: (id: number) => `Subscription ${id}`,
    sendTest: 'Send test event',
    rotate: 'Rotate signing secret',
    replaySince: 'Replay the events recorded since (UTC)',
    failedOnly: 'Only the failed ones',
    replay: 'Replay',
    everyOutcome: 'every outcome',
    credentialsEnded:
      'The credentials that created this subscription or last changed its URL have ended (a client secret rotated, tokens revoked): check that the URL is yours before you enable it.',
    saved: (id: number) => `Subscription ${id} saved.`,
    enabled: (id: number) => `Subscription ${id} enabled: its pending events go now.`,
    rotated: 'New signing secret made: for 24 hours deliveries carry a signature under each.',
    replayed: (n: string, since: string) => `${n} events since ${since} go again.`,
  },
  tr: {
    title: (id) => `${id} numaralı abonelik`,
    sendTest: 'Test olayı gönder',
    rotate: 'İmzalama anahtarını yenile',
    replaySince: 'Şu zamandan beri kaydedilen olayları yeniden gönder (UTC)',
    failedOnly: 'Yalnızca başarısız olanlar',
    replay: 'Yeniden gönder',
    everyOutcome: 'tüm sonuçlar',
    credentialsEnded:
      'Bu aboneliği oluşturan ya da URL’sini en son değiştiren kimlik bilgileri sona erdi (istemci gizli anahtarı yenilendi, belirteçler iptal edildi): etkinleştirmeden önce URL’nin size ait olduğunu doğrulayın.',
    saved: (id) => `${id} numaralı abonelik kaydedildi.`,
    enabled: (id) =>
      `${id} numaralı abonelik etkinleştirildi: bekleyen olayları şimdi gönderiliyor.`,
    rotated:
      'Yeni imzalama anahtarı oluşturuldu: 24 saat boyunca teslimatlar her iki anahtarla da imzalanır.',
    replayed: (n, since) => `${since} tarihinden beri ${n} olay yeniden gönderiliyor.`,
  },
});

/** The page's own words in one language. */
type OwnWords = ReturnType<typeof words>;

type Subscription = NonNullable<Awaited<ReturnType<WebhookService['find']>>>;

const minuteOf = (date: Date) => date.toISOString().slice(0, 16);

function ActionButton(props: { id: number; action: string; label: string }) {
  return (
    <PostForm action={`${WEBHOOKS}/${props.id}/${props.action}`}>
      <button type="submit" safe>
        {props.label}
      </button>
    </PostForm>
  );
}

function Actions(props: { s: Subscription; t: Messages; w: OwnWords }) {
  const { s, t, w } = props;
  return (
    <FormSection
      id="actions"
      heading={t.common.actions}
      action={`${WEBHOOKS}/${s.id}/replay`}
      before={
        <div class="actions">
          {s.enabled ? '' : <ActionButton id={s.id} action="enable" label={t.common.enable} />}
          <ActionButton id={s.id} action="test" label={w.sendTest} />
          <ActionButton id={s.id} action="rotate-secret" label={w.rotate} />
        </div>
      }
    >
      <Field
        id="since"
        label={w.replaySince}
        type="datetime-local"
        required
        value={minuteOf(new Date(Date.now() - 3_600_000))}
      />
      <Check name="failed_only" value="true" label={w.failedOnly} />
      <button type="submit" safe>
        {w.replay}
      </button>
    </FormSection>
  );
}

function EditForm(props: { s: Subscription; client: PartnerClient; t: Messages; locale: Locale }) {
  const { s, t } = props;
  return (
    <FormSection id="edit" heading={t.common.edit} action={`${WEBHOOKS}/${s.id}/edit`}>
      <SubscriptionFields client={props.client} t={t} locale={props.locale} subscription={s} />
      <button type="submit" safe>
        {t.common.saveChanges}
      </button>
    </FormSection>
  );
}

function OutcomeFilter(props: {
  id: number;
  outcome: DeliveryOutcome | undefined;
  t: Messages;
  w: OwnWords;
}) {
  const { t, w } = props;
  return (
    <Filters action={`${WEBHOOKS}/${props.id}`} button={t.common.filter}>
      <Choice
        label={t.common.outcome}
        name="outcome"
        options={[['', w.everyOutcome], ...DELIVERY_OUTCOMES.map((o) => [o, o] as const)]}
        chosen={props.outcome ?? ''}
      />
    </Filters>
  );
}

/** `2026-11-28T09:30` from the form, read as UTC. */
const since = z
  .string()
  .regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/, 'YYYY-MM-DDTHH:MM')
  .transform((text) => new Date(`${text}Z`))
  .refine((at) => !Number.isNaN(at.getTime()), 'YYYY-MM-DDTHH:MM');

const subscription = z.object({ id: positiveId });

/** An action on the page's subscription that takes no form, through the partner's own actions. */
const onSubscription = (
  path: string,
  act: (
    webhooks: ReturnType<WebhookService['asPartner']>,
    id: number,
    w: OwnWords,
    t: Messages,
  ) => Promise<Outcome>,
) =>
  portalAction({
    path,
    params: subscription,
    run: ({ services, who, params: { id }, t, locale }) =>
      act(services.webhooks.asPartner(partnerOf(who)), id, words({ locale }), t),
  });

export const webhookPage = definePage({
  area: PORTAL_AREA,
  path: `${WEBHOOKS}/:id`,
  current: WEBHOOKS,
  only: MANAGES_WEBHOOKS,
  params: subscription,
  query: z.object({ outcome: z.enum(DELIVERY_OUTCOMES).optional().catch(undefined) }),
  load: async ({ services: { webhooks }, who, params: { id }, query: { outcome } }) => {
    const s = await webhooks.find(who.client.id, id);
    if (!s) return null;
    const [tries, total] = await Promise.all([
      webhooks.attempts(id, { skip: 0, take: TRIES_SHOWN }, outcome),
      webhooks.attemptCount(id, outcome),
    ]);
    return { s, tries, total };
  },
  title: { of: (language, { s }) => words(language).title(s.id) },
  view: ({ s, tries, total }, { who, query, t, format, locale }) => {
    const w = words({ locale });
    return (
      <>
        <dl class="secret">
          <dt safe>{t.common.url}</dt>
          <dd>
            <code safe>{s.url}</code>
          </dd>
          <dt safe>{t.common.description}</dt>
          <dd safe>{s.description ?? ''}</dd>
          <dt safe>{t.common.types}</dt>
          <dd safe>{s.types.join(', ')}</dd>
          <dt safe>{t.common.state}</dt>
          <dd safe>{stateOf(t, s)}</dd>
        </dl>
        {s.disabled_reason === CREDENTIALS_ENDED ? (
          <p id="credentials-ended" safe>
            {w.credentialsEnded}
          </p>
        ) : (
          ''
        )}
        <Actions s={s} t={t} w={w} />
        <EditForm s={s} client={who.client} t={t} locale={locale} />
        <h2 safe>{t.common.deliveries}</h2>
        <OutcomeFilter id={s.id} outcome={query.outcome} t={t} w={w} />
        <SubscriptionTries tries={tries} total={total} back={WEBHOOKS} t={t} format={format} />
      </>
    );
  },
  actions: [
    onSubscription('/test', async (webhooks, id) => {
      const result = await webhooks.sendTest(id);
      if (!result) throw notFound();
      return { kind: 'test', result };
    }),
    portalAction({
      path: '/edit',
      params: subscription,
      body: formOf(updateBody, ['types']),
      run: async ({ services, who, params: { id }, body, locale }) => {
        const partner = partnerOf(who);
        const saved = await services.webhooks.asPartner(partner).update(id, {
          ...body,
          // None ticked: every type the scopes allow, as when subscribing.
          types: body.types ?? eventTypesFor(partner.scopes).map((t) => t.type),
          description: body.description ?? null,
        });
        if (!saved) throw notFound();
        return { kind: 'done', message: words({ locale }).saved(id) };
      },
    }),
    onSubscription('/enable', async (webhooks, id, w) => {
      await webhooks.enable(id);
      return { kind: 'done', message: w.enabled(id) };
    }),
    onSubscription('/rotate-secret', async (webhooks, id, w, t) => {
      const rotated = await webhooks.rotateSecret(id);
      if (!rotated) throw notFound();
      return shownOnce(t, w.rotated, rotated.secret);
    }),
    portalAction({
      path: '/replay',
      params: subscription,
      body: z.object({ since, failed_only: z.literal('true').optional() }),
      run: async ({ services, who, params: { id }, body, format, locale }) => {
        const replayed = await services.webhooks
          .asPartner(partnerOf(who))
          .replay(id, body.since, body.failed_only === 'true');
        return {
          kind: 'done',
          message: words({ locale }).replayed(format.number(replayed ?? 0), format.utc(body.since)),
        };
      },
    }),
  ],
});
