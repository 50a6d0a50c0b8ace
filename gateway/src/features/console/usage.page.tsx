// Usage of every client (or one): requests per hour or day as a chart beside the table of its
// numbers (pages/static/charts.js draws the chart from the table), and the same period summed by
// client, operation or status, as `npm run usage -- --json` reports it (usage/usage.read.ts).
import { escapeHtml } from '@kitajs/html';
import { z } from 'zod';
import { NO_CLIENT } from '#api/usage/usage-cells.js';
import { CONSOLE, CONSOLE_AREA } from '../../pages/areas.js';
import { choice, text } from '../../pages/fields.js';
import { Choice, Filters, Typed } from '../../pages/filters.js';
import { Range } from '../../pages/language.js';
import type { Messages } from '../../pages/messages/index.js';
import { countsOf, Periods, SeriesChart, SPAN_MS, TotalsTable } from '../../pages/usage-series.js';
import { definePage } from '../../page-services.js';
import { clientKeysOf, findClientByKey } from '../clients/clients.repository.js';
import { readUsage, usageRange, type UsageRow } from '../usage/usage.read.js';

const PAGE = `${CONSOLE}/usage`;
const MAX_ROWS = 10_000;
const GROUPS = ['client', 'operation', 'status'] as const;
type Group = (typeof GROUPS)[number];

const percentiles = (l: UsageRow['latency_ms']) => [l.p50, l.p95, l.p99];

/** The name of a row of the totals: a client by its key. */
function nameOf(row: UsageRow, by: Group, keys: Map<number, string>, t: Messages) {
  if (by !== 'client') return String(row.group);
  const id = Number(row.group);
  return id === NO_CLIENT ? t.usage.noClient : (keys.get(id) ?? `#${id}`);
}

export const usagePage = definePage({
  area: CONSOLE_AREA,
  path: PAGE,
  title: ({ t }) => t.usage.title,
  nav: ({ t }) => t.nav.usage,
  query: z.object({
    granularity: choice(['hour', 'day'], 'hour'),
    by: choice(GROUPS, 'client'),
    client: text.catch(undefined),
  }),
  async load({ services, query: { granularity, by, client } }) {
    const range = usageRange({}, granularity, Infinity);
    if ('field' in range) throw new Error(range.message);
    range.from = new Date(range.to.getTime() - SPAN_MS[granularity]);
    const found = client === undefined ? null : await findClientByKey(services.db, client);
    const unknown = client !== undefined && !found;
    const { pool } = services.usage;
    const asked = { ...(found ? { clientId: found.id } : {}), ...range, maxRows: MAX_ROWS };
    const [series, totals] = unknown
      ? [{ rows: [] }, { rows: [] }]
      : await Promise.all([
          readUsage(pool, { ...asked, granularity, groupBy: null }),
          readUsage(pool, { ...asked, granularity: null, groupBy: by }),
        ]);
    const ids = by === 'client' ? totals.rows.map((r) => Number(r.group)) : [];
    const keys = await clientKeysOf(
      services.db,
      ids.filter((id) => id !== NO_CLIENT),
    );
    return { range, unknown, series: series.rows, totals: totals.rows, keys };
  },
  view: (
    { range, unknown, series, totals, keys },
    { query: { granularity, by, client }, t, format },
  ) => {
    const group = t.usage.groups[by];
    return (
      <>
        <Filters action={PAGE} button={t.common.show}>
          <Typed label={t.usage.clientFilter} name="client" value={client} />
          <Periods chosen={granularity} t={t} />
          <Choice
            label={t.usage.totalsBy}
            name="by"
            options={GROUPS.map((g) => [g, t.usage.groups[g]])}
            chosen={by}
          />
        </Filters>
        <p id="usage-range">
          <Range from={range.from} to={range.to} t={t} format={format} />
          {escapeHtml(` (${t.usage.utc})`)}
          {unknown && client !== undefined ? escapeHtml(` — ${t.usage.noSuchClient(client)}`) : ''}
        </p>
        <SeriesChart rows={series} range={range} unit={granularity} t={t} format={format} />
        <h2 safe>{t.usage.totals}</h2>
        <div class="scroll">
          <TotalsTable
            id="usage-totals"
            caption={t.usage.periodBy(group)}
            by={group}
            more={[t.usage.bytesOut, 'p50 ms', 'p95 ms', 'p99 ms']}
            rows={totals.map((row) => ({
              name: nameOf(row, by, keys, t),
              cells: [...countsOf(row), row.bytes_out, ...percentiles(row.latency_ms)],
            }))}
            t={t}
            format={format}
          />
        </div>
      </>
    );
  },
});
