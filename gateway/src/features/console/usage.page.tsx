// Usage of every client (or one): requests per hour or day as a chart beside the table of its
// numbers (pages/static/charts.js draws the chart from the table), and the same period summed by
// client, operation or status, as `npm run usage -- --json` reports it (usage/usage.read.ts).
import { z } from 'zod';
import { NO_CLIENT } from '#api/usage/usage-cells.js';
import { CONSOLE, CONSOLE_AREA } from '../../pages/areas.js';
import { choice, text } from '../../pages/fields.js';
import { everyPeriod, FIGURES, SeriesChart, UNIT_MS } from '../../pages/usage-series.js';
import { definePage } from '../../page-services.js';
import { clientKeysOf, findClientByKey } from '../clients/clients.repository.js';
import { readUsage, usageRange, type UsageRow } from '../usage/usage.read.js';

const PAGE = `${CONSOLE}/usage`;
const MAX_ROWS = 10_000;
const GROUPS = ['client', 'operation', 'status'] as const;
type Group = (typeof GROUPS)[number];
/** Hours cover the last day; days the last thirty. */
const SPAN_DAYS = { hour: 1, day: 30 } as const;

function Filters(props: { granularity: string; by: Group; client: string | undefined }) {
  return (
    <form method="get" action={PAGE} class="filters">
      <label>
        Client key (empty: every client)
        <input name="client" value={props.client ?? ''} />
      </label>
      <label>
        Periods
        <select name="granularity">
          <option value="hour" selected={props.granularity === 'hour'}>
            hours of the last day
          </option>
          <option value="day" selected={props.granularity === 'day'}>
            days of the last 30
          </option>
        </select>
      </label>
      <label>
        Totals by
        <select name="by">
          {GROUPS.map((g) => (
            <option value={g} selected={props.by === g}>
              {g}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Show</button>
    </form>
  );
}

function TotalsTable(props: { by: Group; rows: UsageRow[]; keys: Map<number, string> }) {
  const label = (row: UsageRow) => {
    if (props.by !== 'client') return String(row.group);
    const id = Number(row.group);
    return id === NO_CLIENT ? '(none)' : (props.keys.get(id) ?? `#${id}`);
  };
  return (
    <table id="usage-totals">
      <caption safe>{`The whole period by ${props.by}`}</caption>
      <thead>
        <tr>
          <th scope="col">{props.by}</th>
          {FIGURES.map(([, name]) => (
            <th scope="col" class="num">
              {name}
            </th>
          ))}
          <th scope="col" class="num">
            Bytes out
          </th>
          <th scope="col" class="num">
            p50 ms
          </th>
          <th scope="col" class="num">
            p95 ms
          </th>
          <th scope="col" class="num">
            p99 ms
          </th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr>
            <td>
              <code safe>{label(row)}</code>
            </td>
            {[
              ...FIGURES.map(([key]) => row[key]),
              row.bytes_out,
              row.latency_ms.p50,
              row.latency_ms.p95,
              row.latency_ms.p99,
            ].map((n) => (
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

export const usagePage = definePage({
  area: CONSOLE_AREA,
  path: PAGE,
  title: 'Usage',
  query: z.object({
    granularity: choice(['hour', 'day'], 'hour'),
    by: choice(GROUPS, 'client'),
    client: text.catch(undefined),
  }),
  async load({ services, query: { granularity, by, client } }) {
    const range = usageRange({}, granularity, Infinity);
    if ('field' in range) throw new Error(range.message);
    range.from = new Date(range.to.getTime() - SPAN_DAYS[granularity] * 86_400_000);
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
  view: ({ range, unknown, series, totals, keys }, { query: { granularity, by, client } }) => (
    <>
      <Filters granularity={granularity} by={by} client={client} />
      <p
        safe
      >{`From ${range.from.toISOString()} to ${range.to.toISOString()}${unknown ? ` — no client with key ${client}` : ''}.`}</p>
      <SeriesChart rows={everyPeriod(series, range, UNIT_MS[granularity])} />
      <h2>Totals</h2>
      <div class="scroll">
        <TotalsTable by={by} rows={totals} keys={keys} />
      </div>
    </>
  ),
});
