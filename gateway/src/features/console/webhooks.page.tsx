// Every client's webhook subscriptions with their delivery figures, the tries of one with the
// answers its endpoint gave, and the operator's disable and enable (webhooks.operator.ts, as the
// CLI's).
import { z } from 'zod';
import { CONSOLE, CONSOLE_AREA } from '../../pages/areas.js';
import { positiveId } from '../../pages/fields.js';
import { PostForm } from '../../pages/layout.js';
import { Heads } from '../../pages/tables.js';
import {
  EVENT_COUNTS,
  EventCounts,
  stateOf,
  TRIES_SHOWN,
  TriesTable,
} from '../../pages/webhook-tries.js';
import { consoleAction, definePage } from '../../page-services.js';
import { setSubscriptionEnabledAs } from '../webhooks/webhooks.operator.js';
import type { DeliveryFigures, WebhookService } from '../webhooks/webhooks.service.js';

const PAGE = `${CONSOLE}/webhooks`;

type Listed = Awaited<ReturnType<WebhookService['list']>>[number] & { figures: DeliveryFigures };

function SubscriptionsTable(props: { rows: Listed[] }) {
  if (props.rows.length === 0) return <p>No webhook subscriptions.</p>;
  return (
    <div class="scroll">
      <table>
        <caption>Every subscription, with its events by state</caption>
        <Heads
          names={['Id', 'Client', 'URL', 'Types', 'State', ...EVENT_COUNTS, 'Actions']}
          numeric={['Id', ...EVENT_COUNTS]}
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
              <td safe>{stateOf(s)}</td>
              <EventCounts events={s.figures.events} />
              <td class="actions">
                <PostForm action={`${PAGE}/${s.id}/${s.enabled ? 'disable' : 'enable'}`}>
                  <button
                    type="submit"
                    class={s.enabled ? 'warn' : ''}
                    aria-label={`${s.enabled ? 'Disable' : 'Enable'} subscription ${s.id}`}
                  >
                    {s.enabled ? 'Disable' : 'Enable'}
                  </button>
                </PostForm>
                <a href={`${PAGE}/${s.id}`} aria-label={`Deliveries of subscription ${s.id}`}>
                  Deliveries
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
  title: 'Webhook subscriptions',
  load: async ({ services: { webhooks } }) => {
    const subscriptions = await webhooks.list(null);
    return Promise.all(
      subscriptions.map(async (s) => ({ ...s, figures: await webhooks.figures(s.id) })),
    );
  },
  view: (rows) => <SubscriptionsTable rows={rows} />,
  actions: [
    consoleAction({
      path: '/:id/:action',
      params: subscription.extend({ action: z.enum(['enable', 'disable']) }),
      run: async ({ services, who, params: { id, action } }) => {
        await setSubscriptionEnabledAs(services, who, id, action === 'enable');
        return { kind: 'done', message: `Subscription ${id} ${action}d.` };
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
  title: ({ id }) => `Deliveries of subscription ${id}`,
  view: ({ url, tries, total }) => (
    <>
      <p>
        <code safe>{url}</code>
      </p>
      <TriesTable tries={tries} total={total} />
      <p>
        <a href={PAGE}>Back to every subscription</a>
      </p>
    </>
  ),
});
