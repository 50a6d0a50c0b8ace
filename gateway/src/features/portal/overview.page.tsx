// The partner's overview: its client, its limits and what is left of each window now, its
// requests of the last 24 hours by outcome, and the health of its webhook subscriptions.
import { classesOf, clientClasses } from '#api/data-classes.js';
import { escapeHtml } from '@kitajs/html';
import { PORTAL, PORTAL_AREA } from '../../pages/areas.js';
import { At, Range } from '../../pages/language.js';
import type { Format } from '../../pages/locale.js';
import type { Messages } from '../../pages/messages/index.js';
import { pageWords } from '../../pages/page-words.js';
import { Heads } from '../../pages/tables.js';
import { EventCounts, stateOf } from '../../pages/webhook-tries.js';
import { definePage } from '../../page-services.js';
import { clientUsageReport } from '../usage/usage.report.js';
import type { DeliveryFigures, WebhookService } from '../webhooks/webhooks.service.js';
import { partnerOf } from './partner.js';

const WINDOWS = ['minute', 'hour', 'day'] as const;

const OUTCOMES = ['requests', 'client_errors', 'server_errors', 'rate_limited'] as const;

const words = pageWords({
  en: {
    nav: 'Overview',
    title: 'Overview',
    limits: 'Limits',
    lastDay: 'The last 24 hours',
    webhooks: 'Webhooks',
    limitsCaption: 'Requests allowed per window, and what is left now',
    limitHeads: ['Window', 'Limit', 'Left now'],
    windows: { minute: 'minute', hour: 'hour', day: 'day' },
    outcomes: {
      requests: 'Requests',
      client_errors: '4xx answers',
      server_errors: '5xx answers',
      rate_limited: '429 answers',
    },
    noSubscription: 'No webhook subscription.',
    addEndpoint: 'Add an endpoint',
    healthCaption: "Each subscription's events by state",
    lastSuccess: 'Last success (UTC)',
    lastFailure: 'Last failure (UTC)',
  },
  tr: {
    nav: 'Genel bakış',
    title: 'Genel bakış',
    limits: 'Sınırlar',
    lastDay: 'Son 24 saat',
    webhooks: "Webhook'lar",
    limitsCaption: 'Pencere başına izin verilen istekler ve şu an kalan',
    limitHeads: ['Pencere', 'Sınır', 'Şu an kalan'],
    windows: { minute: 'dakika', hour: 'saat', day: 'gün' },
    outcomes: {
      requests: 'İstekler',
      client_errors: '4xx yanıtlar',
      server_errors: '5xx yanıtlar',
      rate_limited: '429 yanıtlar',
    },
    noSubscription: 'Webhook aboneliği yok.',
    addEndpoint: 'Uç nokta ekleyin',
    healthCaption: 'Her aboneliğin durumlarına göre olayları',
    lastSuccess: 'Son başarı (UTC)',
    lastFailure: 'Son hata (UTC)',
  },
});
export { words as overviewWords };

interface Words {
  t: Messages;
  format: Format;
}

/** The page's own words in one language. */
type OwnWords = ReturnType<typeof words>;

/** The shared words and format, and the page's own words. */
type WithOwn = Words & { w: OwnWords };

/** A moment in UTC (its column says so), or `never`. */
function When(props: Words & { at: Date | string | null }) {
  if (props.at === null) return <span safe>{props.t.common.never}</span>;
  const at = new Date(props.at);
  return <At at={at} text={props.format.utc(at)} />;
}

export const overviewPage = definePage({
  area: PORTAL_AREA,
  path: `${PORTAL}/overview`,
  title: (language) => words(language).title,
  nav: (language) => words(language).nav,
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
  view: ({ usage, health }, { who: { client }, t, format, locale }) => {
    const w = words({ locale });
    return (
      <>
        <dl class="secret">
          <dt safe>{t.common.client}</dt>
          <dd safe>{client.name}</dd>
          <dt>client_key</dt>
          <dd>
            <code safe>{client.client_key}</code>
          </dd>
          <dt safe>{t.common.scopes}</dt>
          <dd safe>{client.scopes.join(', ')}</dd>
          <dt safe>{t.common.personalData}</dt>
          <dd safe>{classesOf(clientClasses(client)).join(', ')}</dd>
        </dl>
        <h2 safe>{w.limits}</h2>
        <LimitsTable usage={usage} t={t} w={w} format={format} />
        <h2 safe>{w.lastDay}</h2>
        <LastDayTable usage={usage} t={t} w={w} format={format} />
        <h2 safe>{w.webhooks}</h2>
        <WebhookHealth health={health} t={t} w={w} format={format} />
      </>
    );
  },
});

type UsageReport = Awaited<ReturnType<typeof clientUsageReport>>;
type SubscriptionHealth = Awaited<ReturnType<WebhookService['list']>>[number] & {
  figures: DeliveryFigures;
};

function LimitsTable(props: WithOwn & { usage: UsageReport }) {
  const { usage, t, w, format } = props;
  const heads = w.limitHeads;
  return (
    <table id="limits">
      <caption safe>{w.limitsCaption}</caption>
      <Heads names={heads} numeric={heads.slice(1)} />
      <tbody>
        {WINDOWS.map((name) => {
          const left = usage.remaining[name];
          return (
            <tr>
              <th scope="row" safe>
                {w.windows[name]}
              </th>
              <td class="num" safe>
                {format.number(usage.limits[name])}
              </td>
              <td class="num" safe>
                {left === null ? t.common.unknown : format.number(left)}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function LastDayTable(props: WithOwn & { usage: UsageReport }) {
  const { usage, t, w, format } = props;
  const totals = OUTCOMES.map((key) => ({
    label: w.outcomes[key],
    value: usage.rows.reduce((sum, row) => sum + row[key], 0),
  }));
  return (
    <table id="last-day">
      <caption>
        <Range from={new Date(usage.from)} to={new Date(usage.to)} t={t} format={format} />
        {escapeHtml(` (${t.usage.utc})`)}
      </caption>
      <tbody>
        {totals.map((total) => (
          <tr>
            <th scope="row" safe>
              {total.label}
            </th>
            <td class="num" safe>
              {format.number(total.value)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function WebhookHealth(props: WithOwn & { health: SubscriptionHealth[] }) {
  const { t, w, format } = props;
  if (props.health.length === 0) {
    return (
      <p>
        {escapeHtml(w.noSubscription)}{' '}
        <a href={`${PORTAL}/webhooks`} safe>
          {w.addEndpoint}
        </a>
        .
      </p>
    );
  }
  const counts = t.webhooks.counts;
  return (
    <div class="scroll">
      <table id="webhook-health">
        <caption safe>{w.healthCaption}</caption>
        <Heads
          names={[t.common.url, t.common.state, ...counts, w.lastSuccess, w.lastFailure]}
          numeric={counts}
        />
        <tbody>
          {props.health.map((s) => (
            <tr>
              <td>
                <a href={`${PORTAL}/webhooks/${s.id}`}>
                  <code safe>{s.url}</code>
                </a>
              </td>
              <td safe>{stateOf(t, s)}</td>
              <EventCounts events={s.figures.events} format={format} />
              <td>
                <When at={s.figures.last_success_at} t={t} format={format} />
              </td>
              <td>
                <When at={s.figures.last_failure_at} t={t} format={format} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
