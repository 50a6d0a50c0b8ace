// Usage per period as a chart beside the table of its numbers, for the console and the portal:
// pages/static/charts.js draws the chart from the table (rows carry data-t, cells data-v), so the
// picture and the numbers cannot differ, and without script the table is the page.
import { Choice } from './filters.js';
import { At } from './language.js';
import type { Format } from './locale.js';
import type { Messages } from './messages/index.js';
import { Heads } from './tables.js';

/** The counts of a period, in their columns' order; their heads are the catalogue's. */
export const FIGURES = ['requests', 'client_errors', 'server_errors', 'rate_limited'] as const;

const UNIT_MS = { hour: 3_600_000, day: 86_400_000 } as const;
type Unit = keyof typeof UNIT_MS;

/** A usage page's periods: the hours of the last day, or the days of the last thirty. */
export const SPAN_MS = { hour: UNIT_MS.day, day: 30 * UNIT_MS.day } as const;

/** The choice of a usage page's periods, among its filters. */
export const Periods = (props: { chosen: Unit; t: Messages }) => (
  <Choice
    label={props.t.usage.periods}
    name="granularity"
    options={[
      ['hour', props.t.usage.hours],
      ['day', props.t.usage.days],
    ]}
    chosen={props.chosen}
  />
);

/**
 * The counts a period shows, as the usage reads give them: pages/ imports no feature, so the
 * shape is stated here and the usage rows fit it.
 */
type Figures = Record<(typeof FIGURES)[number], number>;
type Period = { start: number } & Figures;

/** A row's counts, in FIGURES' order. */
export const countsOf = (row: Figures) => FIGURES.map((key) => row[key]);

/** Every period of the range, those without a request as zeros: the chart's line is unbroken. */
function everyPeriod(
  rows: readonly (Figures & { period_start: string | null })[],
  range: { from: Date; to: Date },
  unitMs: number,
): Period[] {
  const counted = new Map(rows.map((row) => [Date.parse(row.period_start ?? ''), row]));
  const periods: Period[] = [];
  for (let start = range.from.getTime(); start < range.to.getTime(); start += unitMs) {
    const row = counted.get(start);
    periods.push({
      start,
      requests: row?.requests ?? 0,
      client_errors: row?.client_errors ?? 0,
      server_errors: row?.server_errors ?? 0,
      rate_limited: row?.rate_limited ?? 0,
    });
  }
  return periods;
}

function SeriesTable(props: { rows: Period[]; t: Messages; format: Format }) {
  const { t, format } = props;
  return (
    <table id="usage-series">
      <caption safe>{t.usage.seriesCaption}</caption>
      <thead>
        <tr>
          <th scope="col" safe>
            {t.usage.periodStart}
          </th>
          {FIGURES.map((key) => (
            <th scope="col" class="num" data-series safe>
              {t.usage.figures[key]}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr data-t={String(row.start / 1000)}>
            <td>
              <At at={new Date(row.start)} text={format.utc(new Date(row.start), 'minute')} />
            </td>
            {countsOf(row).map((count) => (
              <td class="num" data-v={String(count)} safe>
                {format.number(count)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The chart of the range's periods of `unit`, drawn from the table that follows it. */
export function SeriesChart(props: {
  rows: readonly (Figures & { period_start: string | null })[];
  range: { from: Date; to: Date };
  unit: Unit;
  t: Messages;
  format: Format;
}) {
  const { t, format } = props;
  return (
    <>
      <div
        class="chart"
        data-table="usage-series"
        data-unit="requests"
        role="img"
        aria-label={t.usage.chart}
      ></div>
      <div class="scroll">
        <SeriesTable
          rows={everyPeriod(props.rows, props.range, UNIT_MS[props.unit])}
          t={t}
          format={format}
        />
      </div>
    </>
  );
}

/**
 * A range's usage summed by one group (a client, an operation, a status), a row a member of the
 * group: FIGURES' counts, then the columns `more` names.
 */
export function TotalsTable(props: {
  id: string;
  caption: string;
  by: string;
  more: readonly string[];
  rows: readonly { name: string; cells: readonly (number | null)[] }[];
  t: Messages;
  format: Format;
}) {
  const { format } = props;
  const numeric = [...FIGURES.map((key) => props.t.usage.figures[key]), ...props.more];
  return (
    <table id={props.id}>
      <caption safe>{props.caption}</caption>
      <Heads names={[props.by, ...numeric]} numeric={numeric} />
      <tbody>
        {props.rows.map((row) => (
          <tr>
            <td>
              <code safe>{row.name}</code>
            </td>
            {row.cells.map((n) => (
              <td class="num" safe>
                {n === null ? '' : format.number(n)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
