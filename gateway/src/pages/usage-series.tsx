// Usage per period as a chart beside the table of its numbers, for the console and the portal:
// pages/static/charts.js draws the chart from the table (rows carry data-t, cells data-v), so the
// picture and the numbers cannot differ, and without script the table is the page.

export const FIGURES = [
  ['requests', 'Requests'],
  ['client_errors', '4xx'],
  ['server_errors', '5xx'],
  ['rate_limited', '429'],
] as const;

export const UNIT_MS = { hour: 3_600_000, day: 86_400_000 } as const;

/**
 * The counts a period shows, as the usage reads give them: pages/ imports no feature, so the
 * shape is stated here and the usage rows fit it.
 */
type Figures = Record<(typeof FIGURES)[number][0], number>;
export type Period = { start: number } & Figures;

/** Every period of the range, those without a request as zeros: the chart's line is unbroken. */
export function everyPeriod(
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

export function SeriesTable(props: { rows: Period[] }) {
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
            {FIGURES.map(([key]) => (
              <td class="num" data-v={String(row[key])} safe>
                {String(row[key])}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The chart, drawn from the table that follows it. */
export function SeriesChart(props: { rows: Period[] }) {
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
        <SeriesTable rows={props.rows} />
      </div>
    </>
  );
}
