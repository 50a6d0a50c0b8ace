// Usage of every client (or one): requests per hour or day as a chart beside the table of its
// numbers (pages/static/charts.js draws the chart from the table), and the same period summed by
// client, operation or status, as `npm run usage -- --json` reports it (usage/usage.read.ts).
import type { Router } from 'express';
import { NO_CLIENT } from '#api/usage/usage-cells.js';
import { readModelPool, type ReadModelClient } from '#common/databases.js';
import { sendPage } from '../../pages/layout.js';
import { findClientByKey } from '../clients/clients.repository.js';
import { everyPeriod, FIGURES, SeriesChart, UNIT_MS } from '../../pages/usage-series.js';
import { readUsage, usageRange, type UsageRow } from '../usage/usage.read.js';
import { CONSOLE, ConsolePage } from './console-page.js';

const PAGE = `${CONSOLE}/usage`;
const MAX_ROWS = 10_000;
const GROUPS = ['client', 'operation', 'status'] as const;
type Group = (typeof GROUPS)[number];
/** Hours cover the last day; days the last thirty. */
const SPAN_DAYS = { hour: 1, day: 30 } as const;

function options(query: Record<string, unknown>) {
  const granularity = query.granularity === 'day' ? 'day' : 'hour';
  const by: Group = GROUPS.find((g) => g === query.by) ?? 'client';
  const client = typeof query.client === 'string' && query.client ? query.client : undefined;
  return { granularity, by, client } as const;
}

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

export function usagePage(router: Router, deps: { db: ReadModelClient }): void {
  router.get(PAGE, async (req, res) => {
    const { granularity, by, client } = options(req.query);
    const range = usageRange({}, granularity, Infinity);
    if ('field' in range) throw new Error(range.message);
    range.from = new Date(range.to.getTime() - SPAN_DAYS[granularity] * 86_400_000);
    const found = client === undefined ? null : await findClientByKey(deps.db, client);
    const clientId = found?.id;
    const unknown = client !== undefined && !found;
    const pool = readModelPool(deps.db);
    const query = { ...(clientId === undefined ? {} : { clientId }), ...range, maxRows: MAX_ROWS };
    const [series, totals] = unknown
      ? [{ rows: [] }, { rows: [] }]
      : await Promise.all([
          readUsage(pool, { ...query, granularity, groupBy: null }),
          readUsage(pool, { ...query, granularity: null, groupBy: by }),
        ]);
    const ids = totals.rows
      .map((r) => Number(r.group))
      .filter((id) => by === 'client' && id !== NO_CLIENT);
    const keys = new Map(
      (
        await deps.db.apiClient.findMany({
          where: { id: { in: ids } },
          select: { id: true, client_key: true },
        })
      ).map((c) => [c.id, c.client_key]),
    );
    await sendPage(
      res,
      <ConsolePage req={req} title="Usage" current={PAGE}>
        <Filters granularity={granularity} by={by} client={client} />
        <p
          safe
        >{`From ${range.from.toISOString()} to ${range.to.toISOString()}${unknown ? ` — no client with key ${client}` : ''}.`}</p>
        <SeriesChart rows={everyPeriod(series.rows, range, UNIT_MS[granularity])} />
        <h2>Totals</h2>
        <div class="scroll">
          <TotalsTable by={by} rows={totals.rows} keys={keys} />
        </div>
      </ConsolePage>,
    );
  });
}
