// Usage per period as a chart beside the table of its numbers, for the console and the portal:
// pages/static/charts.js draws the chart from the table (rows carry data-t, cells data-v), so the
// picture and the numbers cannot differ, and without script the table is the page.
import { Choice } from './filters.js';
import { Heads } from './tables.js';

export const FIGURES = [
  ['requests', 'Requests'],
  ['client_errors', '4xx'],
  ['server_errors', '5xx'],
  ['rate_limited', '429'],
] as const;

const UNIT_MS = { hour: 3_600_000, day: 86_400_000 } as const;
type Unit = keyof typeof UNIT_MS;

/** A usage page's periods: the hours of the last day, or the days of the last thirty. */
export const SPAN_MS = { hour: UNIT_MS.day, day: 30 * UNIT_MS.day } as const;

/** The choice of a usage page's periods, among its filters. */
export const Periods = (props: { chosen: Unit }) => (
  <Choice
    label="Periods"
    name="granularity"
    options={[
      ['hour', 'hours of the last day'],
      ['day', 'days of the last 30'],
    ]}
    chosen={props.chosen}
  />
);

/**
 * The counts a period shows, as the usage reads give them: pages/ imports no feature, so the
 * shape is stated here and the usage rows fit it.
 */
type Figures = Record<(typeof FIGURES)[number][0], number>;
type Period = { start: number } & Figures;

/** A row's counts, in FIGURES' order. */
export const countsOf = (row: Figures) => FIGURES.map(([key]) => row[key]);

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

function SeriesTable(props: { rows: Period[] }) {
  return (
    <table id="usage-series">
      <caption>Requests per period (UTC)</caption>
      <thead>
        <tr>
          <th scope="col">Period start</th>
          {FIGURES.map(([, label]) => (
            <th scope="col" class="num" data-series>
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr data-t={String(row.start / 1000)}>
            <td safe>{new Date(row.start).toISOString().replace('T', ' ').slice(0, 16)}</td>
            {countsOf(row).map((count) => (
              <td class="num" data-v={String(count)} safe>
                {String(count)}
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
}) {
  return (
    <>
      <div
        class="chart"
        data-table="usage-series"
        data-unit="requests"
        role="img"
        aria-label="Chart of the requests per period; the table below holds its numbers"
      ></div>
      <div class="scroll">
        <SeriesTable rows={everyPeriod(props.rows, props.range, UNIT_MS[props.unit])} />
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
}) {
  const numeric = [...FIGURES.map(([, name]) => name), ...props.more];
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
                {n === null ? '' : String(n)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
