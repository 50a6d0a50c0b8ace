// The partner's overview: its client, its limits and what is left of each window now, its
// requests of the last 24 hours by outcome, and the health of its webhook subscriptions.
import { classesOf, clientClasses } from '#api/data-classes.js';
import { PORTAL, PORTAL_AREA } from '../../pages/areas.js';
import { Heads } from '../../pages/tables.js';
import { EVENT_COUNTS, EventCounts, stateOf } from '../../pages/webhook-tries.js';
import { definePage } from '../../page-services.js';
import { clientUsageReport } from '../usage/usage.report.js';
import type { DeliveryFigures, WebhookService } from '../webhooks/webhooks.service.js';
import { partnerOf } from './partner.js';

const WINDOWS = ['minute', 'hour', 'day'] as const;

const OUTCOMES = [
  ['requests', 'Requests'],
  ['client_errors', '4xx answers'],
  ['server_errors', '5xx answers'],
  ['rate_limited', '429 answers'],
] as const;

const when = (date: Date | string | null) =>
  date === null ? 'never' : new Date(date).toISOString().replace('T', ' ').slice(0, 19);

export const overviewPage = definePage({
  area: PORTAL_AREA,
  path: `${PORTAL}/overview`,
  title: 'Overview',
  load: async ({ services: { usage, webhooks }, who }) => {
    const [report, subscriptions] = await Promise.all([
      clientUsageReport(usage, partnerOf(who), { granularity: 'hour' }),
      webhooks.list(who.client.id),
    ]);
    const health = await Promise.all(
      subscriptions.map(async (s) => ({ ...s, figures: await webhooks.figures(s.id) })),
    );
    return { usage: report, health };
  },
  view: ({ usage, health }, { who: { client } }) => (
    <>
      <dl class="secret">
        <dt>Client</dt>
        <dd safe>{client.name}</dd>
        <dt>client_key</dt>
        <dd>
          <code safe>{client.client_key}</code>
        </dd>
        <dt>Scopes</dt>
        <dd safe>{client.scopes.join(', ')}</dd>
        <dt>Members' personal data</dt>
        <dd safe>{classesOf(clientClasses(client)).join(', ')}</dd>
      </dl>
      <h2>Limits</h2>
      <LimitsTable usage={usage} />
      <h2>The last 24 hours</h2>
      <LastDayTable usage={usage} />
      <h2>Webhooks</h2>
      <WebhookHealth health={health} />
    </>
  ),
});

type UsageReport = Awaited<ReturnType<typeof clientUsageReport>>;
type SubscriptionHealth = Awaited<ReturnType<WebhookService['list']>>[number] & {
  figures: DeliveryFigures;
};

function LimitsTable(props: { usage: UsageReport }) {
  const { usage } = props;
  return (
    <table id="limits">
      <caption>Requests allowed per window, and what is left now</caption>
      <Heads names={['Window', 'Limit', 'Left now']} numeric={['Limit', 'Left now']} />
      <tbody>
        {WINDOWS.map((name) => (
          <tr>
            <th scope="row">{name}</th>
            <td class="num" safe>
              {String(usage.limits[name])}
            </td>
            <td class="num" safe>
              {usage.remaining[name] === null ? 'unknown' : String(usage.remaining[name])}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function LastDayTable(props: { usage: UsageReport }) {
  const { usage } = props;
  const totals = OUTCOMES.map(([key, label]) => ({
    label,
    value: usage.rows.reduce((sum, row) => sum + row[key], 0),
  }));
  return (
    <table id="last-day">
      <caption safe>{`From ${usage.from} to ${usage.to}`}</caption>
      <tbody>
        {totals.map((t) => (
          <tr>
            <th scope="row">{t.label}</th>
            <td class="num" safe>
              {String(t.value)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function WebhookHealth(props: { health: SubscriptionHealth[] }) {
  if (props.health.length === 0) {
    return (
      <p>
        No webhook subscription. <a href={`${PORTAL}/webhooks`}>Add an endpoint</a>.
      </p>
    );
  }
  return (
    <div class="scroll">
      <table id="webhook-health">
        <caption>Each subscription's events by state</caption>
        <Heads
          names={['URL', 'State', ...EVENT_COUNTS, 'Last success (UTC)', 'Last failure (UTC)']}
          numeric={EVENT_COUNTS}
        />
        <tbody>
          {props.health.map((s) => (
            <tr>
              <td>
                <a href={`${PORTAL}/webhooks/${s.id}`}>
                  <code safe>{s.url}</code>
                </a>
              </td>
              <td safe>{stateOf(s)}</td>
              <EventCounts events={s.figures.events} />
              <td safe>{when(s.figures.last_success_at)}</td>
              <td safe>{when(s.figures.last_failure_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
