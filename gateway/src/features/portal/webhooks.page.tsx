// The partner's webhook subscriptions: the list with each one's events by state, and a new one
// (its signing secret shown this once), through the webhook service's `subscribe`, as the API's
// POST /webhooks. The types offered are GET /webhooks/event-types' for the client's scopes.
// Without the webhooks:manage scope, the pages say why they are closed.
import { currentScopes } from '#api/scopes.js';
import {
  PORTAL,
  PORTAL_AREA,
  type PartnerClient,
  type SignedInPartner,
} from '../../pages/areas.js';
import { formOf } from '../../pages/fields.js';
import { Check, Checks, Field, FormSection } from '../../pages/form-parts.js';
import type { Messages } from '../../pages/messages/index.js';
import type { Words } from '../../pages/language.js';
import type { Locale } from '../../pages/locale.js';
import { pageWords } from '../../pages/page-words.js';
import { Heads } from '../../pages/tables.js';
import { stateOf } from '../../pages/webhook-tries.js';
import type { Outcome } from '../../pages/outcome.js';
import { definePage, portalAction } from '../../page-services.js';
import { eventTypesFor } from '../webhooks/webhooks.event-types.js';
import { createBody } from '../webhooks/webhooks.schemas.js';
import type { WebhookService } from '../webhooks/webhooks.service.js';
import { partnerOf } from './partner.js';

export const WEBHOOKS = `${PORTAL}/webhooks`;
const MANAGE = 'webhooks:manage';

const words = pageWords({
  en: {
    title: 'Webhooks',
    noScope: (scope: string) =>
      `Your client does not hold the ${scope} scope: ask your API operator for it to manage webhooks.`,
    none: 'No subscription yet.',
    caption: 'Your webhook subscriptions',
    subscriptionOf: (id: number) => `Subscription ${id}`,
    typesLegend: (fallback: string) => `Event types (none ticked: ${fallback})`,
    everyType: 'every type your scopes allow',
    add: 'Add an endpoint',
    descriptionOptional: 'Description (optional)',
    descriptionEmpty: 'Description (empty: none)',
    addButton: 'Add endpoint',
    added: (id: number) =>
      `Subscription ${id} added: deliveries to it are signed with this secret.`,
  },
  tr: {
    title: "Webhook'lar",
    noScope: (scope) =>
      `İstemcinizde ${scope} kapsamı yok: webhook’ları yönetmek için API operatörünüzden isteyin.`,
    none: 'Henüz abonelik yok.',
    caption: 'Webhook abonelikleriniz',
    subscriptionOf: (id) => `${id} numaralı abonelik`,
    typesLegend: (fallback) => `Olay türleri (hiçbiri işaretli değilse: ${fallback})`,
    everyType: 'kapsamlarınızın izin verdiği tüm türler',
    add: 'Uç nokta ekle',
    descriptionOptional: 'Açıklama (isteğe bağlı)',
    descriptionEmpty: 'Açıklama (boş: yok)',
    addButton: 'Uç nokta ekle',
    added: (id) => `${id} numaralı abonelik eklendi: teslimatları bu anahtarla imzalanır.`,
  },
});

/** The page's own words in one language. */
type OwnWords = ReturnType<typeof words>;

/** The webhook pages are open to a client holding webhooks:manage, as the API's endpoints are. */
export const MANAGES_WEBHOOKS = {
  allows: (partner: SignedInPartner) => partner.client.scopes.includes(MANAGE),
  title: (language: Words) => words(language).title,
  message: (language: Words) => words(language).noScope(MANAGE),
};

/** A signing secret the partner is shown this once. */
export const shownOnce = (t: Messages, message: string, secret: string): Outcome => ({
  kind: 'secret',
  message: `${message} ${t.outcome.shownOnce}`,
  shown: [[t.common.signingSecret, secret]],
});

type Listed = Awaited<ReturnType<WebhookService['list']>>[number];

function SubscriptionsTable(props: { rows: Listed[]; t: Messages; w: OwnWords }) {
  const { t, w } = props;
  const c = t.common;
  if (props.rows.length === 0) return <p safe>{w.none}</p>;
  return (
    <div class="scroll">
      <table id="subscriptions">
        <caption safe>{w.caption}</caption>
        <Heads names={[c.id, c.url, c.description, c.types, c.state]} numeric={[c.id]} />
        <tbody>
          {props.rows.map((s) => (
            <tr>
              <td class="num">
                <a href={`${WEBHOOKS}/${s.id}`} aria-label={w.subscriptionOf(s.id)} safe>
                  {String(s.id)}
                </a>
              </td>
              <td>
                <code safe>{s.url}</code>
              </td>
              <td safe>{s.description ?? ''}</td>
              <td safe>{s.types.join(', ')}</td>
              <td safe>{stateOf(t, s)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * What a partner sets on a subscription, as the add and edit forms both ask it: the endpoint, a
 * description, and the event types its scopes allow (GET /webhooks/event-types' list; none ticked
 * means every one). A new subscription shows them empty; an edited one, as they are.
 */
export function SubscriptionFields(props: {
  client: PartnerClient;
  t: Messages;
  locale: Locale;
  subscription?: Pick<Listed, 'url' | 'description' | 'types'>;
}) {
  const { t, subscription: s } = props;
  const w = words(props);
  return (
    <>
      <Field
        id="url"
        label={t.common.endpointUrl}
        type="url"
        required
        maxlength="2048"
        autocomplete="off"
        value={s?.url}
      />
      <Field
        id="description"
        label={s ? w.descriptionEmpty : w.descriptionOptional}
        maxlength="500"
        autocomplete="off"
        value={s ? (s.description ?? '') : undefined}
      />
      <Checks legend={w.typesLegend(w.everyType)}>
        {eventTypesFor(currentScopes(props.client)).map(({ type }) => (
          <Check
            name="types"
            value={type}
            label={type}
            checked={s?.types.includes(type) ?? false}
          />
        ))}
      </Checks>
    </>
  );
}

function CreateForm(props: { client: PartnerClient; t: Messages; locale: Locale }) {
  const w = words(props);
  return (
    <FormSection id="create" heading={w.add} action={WEBHOOKS}>
      <SubscriptionFields client={props.client} t={props.t} locale={props.locale} />
      <button type="submit" safe>
        {w.addButton}
      </button>
    </FormSection>
  );
}

export const webhooksPage = definePage({
  area: PORTAL_AREA,
  path: WEBHOOKS,
  title: (language) => words(language).title,
  nav: ({ t }) => t.nav.webhooks,
  only: MANAGES_WEBHOOKS,
  load: ({ services, who }) => services.webhooks.list(who.client.id),
  view: (rows, { who, t, locale }) => (
    <>
      <SubscriptionsTable rows={rows} t={t} w={words({ locale })} />
      <CreateForm client={who.client} t={t} locale={locale} />
    </>
  ),
  actions: [
    portalAction({
      body: formOf(createBody, ['types']),
      run: async ({ services, who, body, t, locale }) => {
        const created = await services.webhooks.asPartner(partnerOf(who)).subscribe(body);
        return shownOnce(t, words({ locale }).added(created.id), created.secret);
      },
    }),
  ],
});
