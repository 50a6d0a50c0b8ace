// The partner's usage: requests per hour (the last day) or per day (the last 30) as a chart beside
// the table of its numbers, the same range by operation and by status, and a CSV download whose
// lines are GET /api/v1/usage's rows for the same range (usage/usage.report.ts answers both).
import { escapeHtml } from '@kitajs/html';
import { z } from 'zod';
import { PORTAL, PORTAL_AREA } from '../../pages/areas.js';
import { choice } from '../../pages/fields.js';
import { Filters } from '../../pages/filters.js';
import { Range } from '../../pages/language.js';
import { countsOf, Periods, SeriesChart, SPAN_MS, TotalsTable } from '../../pages/usage-series.js';
import { defineDownload, definePage } from '../../page-services.js';
import { CSV_FIGURES, csvFigures, csvText } from '../usage/usage.csv.js';
import { readUsage, type UsageGroup } from '../usage/usage.read.js';
import { clientUsageReport } from '../usage/usage.report.js';
import { MAX_ROWS, usageQuery } from '../usage/usage.schemas.js';
import { partnerOf } from './partner.js';

const PAGE = `${PORTAL}/usage`;
/** The usage download: counted by the portal's request limit (portal-limit.tsx). */
export const USAGE_CSV = `${PORTAL}/usage.csv`;
const GROUPS = ['operation', 'status'] as const satisfies readonly UsageGroup[];

function csvHref(range: { from: string; to: string; granularity: string }, by?: UsageGroup) {
  const query = new URLSearchParams({ ...range, ...(by ? { group_by: by } : {}) });
  return `${USAGE_CSV}?${query.toString()}`;
}

export const usagePage = definePage({
  area: PORTAL_AREA,
  path: PAGE,
  title: ({ t }) => t.usage.title,
  nav: ({ t }) => t.nav.usage,
  query: z.object({ granularity: choice(['hour', 'day'], 'hour') }),
  load: async ({ services: { usage }, who, query: { granularity } }) => {
    const now = Date.now();
    const asked = {
      granularity,
      from: new Date(now - SPAN_MS[granularity]).toISOString(),
      to: new Date(now).toISOString(),
    } as const;
    const report = await clientUsageReport(usage, partnerOf(who), asked);
    const range = { from: new Date(report.from), to: new Date(report.to) };
    const totals = await Promise.all(
      GROUPS.map((by) =>
        readUsage(usage.pool, {
          clientId: who.client.id,
          ...range,
          granularity: null,
          groupBy: by,
          maxRows: MAX_ROWS,
        }),
      ),
    );
    return { report, range, totals };
  },
  view: ({ report, range, totals }, { query: { granularity }, t, format }) => {
    const csvRange = { from: report.from, to: report.to, granularity };
    const w = t.usage;
    return (
      <>
        <Filters action={PAGE} button={t.common.show}>
          <Periods chosen={granularity} t={t} />
        </Filters>
        <p id="usage-range">
          <Range from={range.from} to={range.to} t={t} format={format} />
          {escapeHtml(` (${w.utc})`)}
        </p>
        <SeriesChart rows={report.rows} range={range} unit={granularity} t={t} format={format} />
        {GROUPS.map((by, i) => (
          <>
            <h2 safe>{w.by(w.groups[by])}</h2>
            <div class="scroll">
              <TotalsTable
                id={`usage-by-${by}`}
                caption={w.rangeBy(w.groups[by])}
                by={w.groups[by]}
                more={['p95 ms']}
                rows={totals[i]!.rows.map((row) => ({
                  name: String(row.group),
                  cells: [...countsOf(row), row.latency_ms.p95],
                }))}
                t={t}
                format={format}
              />
            </div>
          </>
        ))}
        <h2 safe>{w.download}</h2>
        <p safe>{w.downloadText}</p>
        <ul>
          <li>
            <a href={csvHref(csvRange)} hx-boost="false" download="" safe>
              {w.perPeriod}
            </a>
          </li>
          {GROUPS.map((by) => (
            <li>
              <a href={csvHref(csvRange, by)} hx-boost="false" download="" safe>
                {w.perPeriodAnd(w.groups[by])}
              </a>
            </li>
          ))}
        </ul>
      </>
    );
  },
});

/** The partner's usage as GET /api/v1/usage answers it for the same query, as CSV. */
export const usageDownload = defineDownload({
  area: PORTAL_AREA,
  path: USAGE_CSV,
  current: PAGE,
  title: ({ t }) => t.usage.downloadRefused,
  query: usageQuery,
  file: async ({ services, who, query }) => {
    const report = await clientUsageReport(services.usage, partnerOf(who), query);
    const by = query.group_by;
    const header = ['period_start', ...(by ? [by] : []), ...CSV_FIGURES];
    const lines = report.rows.map((row) => [
      row.period_start,
      ...(by === 'operation' ? [row.operation ?? ''] : []),
      ...(by === 'status' ? [String(row.status)] : []),
      ...csvFigures(row),
    ]);
    return {
      name: `usage-${who.client.client_key}-${report.from.slice(0, 13)}.csv`,
      type: 'text/csv',
      body: `${csvText([header, ...lines])}\n`,
    };
  },
});
