// Every client's webhook subscriptions with their delivery figures, the tries of one with the
// answers its endpoint gave, and the operator's disable and enable (webhooks.operator.ts, as the
// CLI's).
import type { Request, Response, Router } from 'express';
import type { ReadModelClient } from '#common/databases.js';
import { CSRF_FIELD, csrfToken } from '../../pages/forms.js';
import { Notice, sendPage } from '../../pages/layout.js';
import { TRIES_SHOWN, TriesTable } from '../../pages/webhook-tries.js';
import { OperatorRefusal } from '../../cli/operator-refusal.js';
import { setSubscriptionEnabledAs } from '../webhooks/webhooks.operator.js';
import type { DeliveryFigures, WebhookService } from '../webhooks/webhooks.service.js';
import { CONSOLE, ConsolePage, consoleOperator } from './console-page.js';

const PAGE = `${CONSOLE}/webhooks`;

export interface ConsoleWebhooksDeps {
  db: ReadModelClient;
  service: WebhookService;
}

type Listed = Awaited<ReturnType<WebhookService['list']>>[number] & { figures: DeliveryFigures };

function SubscriptionsTable(props: { rows: Listed[]; csrf: string }) {
  if (props.rows.length === 0) return <p>No webhook subscriptions.</p>;
  return (
    <div class="scroll">
      <table>
        <caption>Every subscription, with its events by state</caption>
        <thead>
          <tr>
            <th scope="col" class="num">
              Id
            </th>
            <th scope="col">Client</th>
            <th scope="col">URL</th>
            <th scope="col">Types</th>
            <th scope="col">State</th>
            <th scope="col" class="num">
              Delivered
            </th>
            <th scope="col" class="num">
              Failed
            </th>
            <th scope="col" class="num">
              Pending
            </th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
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
              <td safe>
                {s.enabled ? 'enabled' : `disabled (${s.disabled_reason ?? 'no reason'})`}
              </td>
              <td class="num" safe>
                {String(s.figures.events.delivered)}
              </td>
              <td class="num" safe>
                {String(s.figures.events.failed)}
              </td>
              <td class="num" safe>
                {String(s.figures.events.pending)}
              </td>
              <td class="actions">
                <form method="post" action={`${PAGE}/${s.id}/${s.enabled ? 'disable' : 'enable'}`}>
                  <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
                  <button
                    type="submit"
                    class={s.enabled ? 'warn' : ''}
                    aria-label={`${s.enabled ? 'Disable' : 'Enable'} subscription ${s.id}`}
                  >
                    {s.enabled ? 'Disable' : 'Enable'}
                  </button>
                </form>
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

async function renderList(
  req: Request,
  res: Response,
  deps: ConsoleWebhooksDeps,
  notice?: { kind: 'error' | 'done'; message: string },
  status = 200,
) {
  const subscriptions = await deps.service.list(null);
  const rows = await Promise.all(
    subscriptions.map(async (s) => ({ ...s, figures: await deps.service.figures(s.id) })),
  );
  res.set('HX-Push-Url', PAGE);
  await sendPage(
    res,
    <ConsolePage req={req} title="Webhook subscriptions" current={PAGE}>
      {notice ? (
        <Notice kind={notice.kind}>
          <span safe>{notice.message}</span>
        </Notice>
      ) : (
        ''
      )}
      <SubscriptionsTable rows={rows} csrf={csrfToken(req)} />
    </ConsolePage>,
    status,
  );
}

const positiveId = (value: string) =>
  /^\d{1,9}$/.test(value) && Number(value) > 0 ? Number(value) : null;

export function webhooksPage(router: Router, deps: ConsoleWebhooksDeps): void {
  router.get(PAGE, (req, res) => renderList(req, res, deps));

  router.get(`${PAGE}/:id`, async (req, res, next) => {
    const id = positiveId(req.params.id);
    const subscription = id === null ? null : await deps.service.find(null, id);
    if (id === null || !subscription) return next();
    const [tries, total] = await Promise.all([
      deps.service.attempts(id, { skip: 0, take: TRIES_SHOWN }),
      deps.service.attemptCount(id),
    ]);
    await sendPage(
      res,
      <ConsolePage req={req} title={`Deliveries of subscription ${id}`} current={PAGE}>
        <p>
          <code safe>{subscription.url}</code>
        </p>
        <TriesTable tries={tries} total={total} />
        <p>
          <a href={PAGE}>Back to every subscription</a>
        </p>
      </ConsolePage>,
    );
  });

  router.post(`${PAGE}/:id/:action`, async (req, res, next) => {
    const id = positiveId(req.params.id);
    const { action } = req.params;
    if (id === null || (action !== 'enable' && action !== 'disable')) return next();
    try {
      await setSubscriptionEnabledAs(deps, consoleOperator(req), id, action === 'enable');
      await renderList(req, res, deps, { kind: 'done', message: `Subscription ${id} ${action}d.` });
    } catch (error) {
      if (!(error instanceof OperatorRefusal)) throw error;
      await renderList(req, res, deps, { kind: 'error', message: error.message }, 400);
    }
  });
}
