// Every client's webhook subscriptions with their delivery figures, the tries of one with the
// answers its endpoint gave, and the operator's disable and enable (webhooks.operator.ts, as the
// CLI's).
import { z } from 'zod';
import { CONSOLE, CONSOLE_AREA } from '../../pages/areas.js';
import { positiveId } from '../../pages/fields.js';
import { PostForm } from '../../pages/layout.js';
import type { Format } from '../../pages/locale.js';
import type { Messages } from '../../pages/messages/index.js';
import { pageWords } from '../../pages/page-words.js';
import { Heads } from '../../pages/tables.js';
import { EventCounts, stateOf, TRIES_SHOWN, SubscriptionTries } from '../../pages/webhook-tries.js';
import { consoleAction, definePage } from '../../page-services.js';
import { setSubscriptionEnabledAs } from '../webhooks/webhooks.operator.js';
import type { DeliveryFigures, WebhookService } from '../webhooks/webhooks.service.js';

const PAGE = `${CONSOLE}/webhooks`;

const words = pageWords({
  en: {
    title: 'Webhook subscriptions',
    none: 'No webhook subscriptions.',
    caption: 'Every subscription, with its events by state',
    enableOf: (id: number) => `Enable subscription ${id}`,
    disableOf: (id: number) => `Disable subscription ${id}`,
    deliveriesOf: (id: number) => `Deliveries of subscription ${id}`,
    wasEnabled: (id: number) => `Subscription ${id} enabled.`,
    wasDisabled: (id: number) => `Subscription ${id} disabled.`,
  },
  tr: {
    title: 'Webhook abonelikleri',
    none: 'Webhook aboneliği yok.',
    caption: 'Tüm abonelikler ve durumlarına göre olayları',
    enableOf: (id) => `${id} numaralı aboneliği etkinleştir`,
    disableOf: (id) => `${id} numaralı aboneliği devre dışı bırak`,
    deliveriesOf: (id) => `${id} numaralı aboneliğin teslimatları`,
    wasEnabled: (id) => `${id} numaralı abonelik etkinleştirildi.`,
    wasDisabled: (id) => `${id} numaralı abonelik devre dışı bırakıldı.`,
  },
});

/** The page's own words in one language. */
type OwnWords = ReturnType<typeof words>;

type Listed = Awaited<ReturnType<WebhookService['list']>>[number] & { figures: DeliveryFigures };

function SubscriptionsTable(props: { rows: Listed[]; t: Messages; w: OwnWords; format: Format }) {
  const { t, w, format } = props;
  const c = t.common;
  if (props.rows.length === 0) return <p safe>{w.none}</p>;
  return (
    <div class="scroll">
      <table>
        <caption safe>{w.caption}</caption>
        <Heads
          names={[c.id, c.client, c.url, c.types, c.state, ...t.webhooks.counts, c.actions]}
          numeric={[c.id, ...t.webhooks.counts]}
        />
        <tbody>
          {props.rows.map((s) => (
            <tr>
              <td class="num">
                <a href={`${PAGE}/${s.id}`} safe>
                  {String(s.id)}
                </a>
              </td>
              <td>
                <code safe>{s.client.client_key}</code>
              </td>
              <td>
                <code safe>{s.url}</code>
              </td>
              <td safe>{s.types.join(', ')}</td>
              <td safe>{stateOf(t, s)}</td>
              <EventCounts events={s.figures.events} format={format} />
              <td class="actions">
                <PostForm action={`${PAGE}/${s.id}/${s.enabled ? 'disable' : 'enable'}`}>
                  <button
                    type="submit"
                    class={s.enabled ? 'warn' : ''}
                    aria-label={s.enabled ? w.disableOf(s.id) : w.enableOf(s.id)}
                    safe
                  >
                    {s.enabled ? c.disable : c.enable}
                  </button>
                </PostForm>
                <a href={`${PAGE}/${s.id}`} aria-label={w.deliveriesOf(s.id)} safe>
                  {c.deliveries}
                </a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const subscription = z.object({ id: positiveId });

export const webhooksPage = definePage({
  area: CONSOLE_AREA,
  path: PAGE,
  title: (language) => words(language).title,
  nav: ({ t }) => t.nav.webhooks,
  load: async ({ services: { webhooks } }) => {
    const subscriptions = await webhooks.list(null);
    return Promise.all(
      subscriptions.map(async (s) => ({ ...s, figures: await webhooks.figures(s.id) })),
    );
  },
  view: (rows, { t, format, locale }) => (
    <SubscriptionsTable rows={rows} t={t} w={words({ locale })} format={format} />
  ),
  actions: [
    consoleAction({
      path: '/:id/:action',
      params: subscription.extend({ action: z.enum(['enable', 'disable']) }),
      run: async ({ services, who, params: { id, action }, locale }) => {
        await setSubscriptionEnabledAs(services, who, id, action === 'enable');
        const w = words({ locale });
        const message = action === 'enable' ? w.wasEnabled(id) : w.wasDisabled(id);
        return { kind: 'done', message };
      },
    }),
  ],
});

export const deliveriesPage = definePage({
  area: CONSOLE_AREA,
  path: `${PAGE}/:id`,
  current: PAGE,
  params: subscription,
  load: async ({ services: { webhooks }, params: { id } }) => {
    const found = await webhooks.find(null, id);
    if (!found) return null;
    const [tries, total] = await Promise.all([
      webhooks.attempts(id, { skip: 0, take: TRIES_SHOWN }),
      webhooks.attemptCount(id),
    ]);
    return { id, url: found.url, tries, total };
  },
  title: { of: (language, { id }) => words(language).deliveriesOf(id) },
  view: ({ url, tries, total }, { t, format }) => (
    <>
      <p>
        <code safe>{url}</code>
      </p>
      <SubscriptionTries tries={tries} total={total} back={PAGE} t={t} format={format} />
    </>
  ),
});
