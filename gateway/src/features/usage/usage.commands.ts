// The report of usage.cli.ts: the usage query over every client (or one), summed over the whole
// period, as a table, JSON or CSV. Client keys are shown as stored; every cell is escaped for the
// terminal (formatTable, terminalJson) or quoted for CSV. The read model is the CLIs' composition
// root's (gateway/src/cli-services.ts).
import { NO_CLIENT } from '#api/usage/usage-cells.js';
import type { ReadModelClient } from '#common/databases.js';
import type { OpenCliServices } from '../../cli-services.js';
import { CliError } from '../../cli/operator-cli.js';
import { terminalJson } from '../../cli/terminal-text.js';
import { findClientByKey } from '../clients/clients.repository.js';
import { formatTable } from '../clients/table.js';
import { CSV_FIGURES, csvFigures, csvText } from './usage.csv.js';
import { usageQuery } from './usage.schemas.js';
import { USAGE_GROUPS, type CliArgs, type UsageCliGroup } from './usage.help.js';
import {
  figuresOf,
  readUsage,
  usageRange,
  type UsageFigures,
  type UsageRow,
} from './usage.read.js';

/** Rows an operator's report reads at most: clients × operations × statuses stay far below. */
const MAX_ROWS = 100_000;
/** How requests no client authenticated are shown. */
const NONE = '(none)';

function parseGroup(value: string | undefined): UsageCliGroup {
  if (value === undefined) return 'client';
  if ((USAGE_GROUPS as readonly string[]).includes(value)) return value as UsageCliGroup;
  throw new CliError(`--by must be one of ${USAGE_GROUPS.join(', ')}, got "${value}"`);
}

function parseInstant(name: 'from' | 'to', value: string | undefined): string | undefined {
  if (value !== undefined && !usageQuery.shape[name].safeParse(value).success) {
    throw new CliError(`--${name} must be an ISO instant such as 2026-11-25T09:00:00Z`);
  }
  return value;
}

interface ReportLine extends UsageFigures {
  client_id?: number | null;
  client_key?: string;
  operation?: string;
  status?: number;
}

async function clientKeys(db: ReadModelClient, rows: UsageRow[]): Promise<Map<number, string>> {
  const ids = rows.map((row) => Number(row.group)).filter((id) => id !== NO_CLIENT);
  const clients = await db.apiClient.findMany({
    where: { id: { in: ids } },
    select: { id: true, client_key: true },
  });
  return new Map(clients.map((c) => [c.id, c.client_key]));
}

async function reportLines(
  db: ReadModelClient,
  by: UsageCliGroup,
  rows: UsageRow[],
): Promise<ReportLine[]> {
  const keys = by === 'client' ? await clientKeys(db, rows) : new Map<number, string>();
  return rows.map((row) => {
    const { group } = row;
    const figures = figuresOf(row);
    if (by === 'operation') return { operation: String(group), ...figures };
    if (by === 'status') return { status: Number(group), ...figures };
    const id = Number(group);
    if (id === NO_CLIENT) return { client_id: null, client_key: NONE, ...figures };
    // A client deleted since: its id stands for it.
    return { client_id: id, client_key: keys.get(id) ?? `#${id}`, ...figures };
  });
}

const FIGURE_HEADERS = ['REQUESTS', '4XX', '5XX', '429', 'BYTES OUT', 'P50 MS', 'P95 MS', 'P99 MS'];
const groupCell = (by: UsageCliGroup, line: ReportLine) =>
  by === 'client'
    ? (line.client_key ?? '')
    : by === 'operation'
      ? (line.operation ?? '')
      : String(line.status);

function csv(by: UsageCliGroup, lines: ReportLine[]): string {
  const header = [...(by === 'client' ? ['client_id', 'client_key'] : [by]), ...CSV_FIGURES];
  const rows = lines.map((line) => [
    ...(by === 'client' ? [line.client_id === null ? '' : String(line.client_id)] : []),
    groupCell(by, line),
    ...csvFigures(line),
  ]);
  return csvText([header, ...rows]);
}

export async function runCommand(args: CliArgs, open: OpenCliServices): Promise<void> {
  const by = parseGroup(args.by);
  const range = usageRange(
    { from: parseInstant('from', args.from), to: parseInstant('to', args.to) },
    'hour',
    Infinity,
  );
  if ('field' in range) throw new CliError('--to must be after --from');
  const { db, pool } = open();
  let clientId: number | undefined;
  if (args.client !== undefined) {
    const client = await findClientByKey(db, args.client);
    if (!client) throw new CliError(`no client with key "${args.client}"`);
    clientId = client.id;
  }
  const { rows, more } = await readUsage(pool, {
    clientId,
    ...range,
    granularity: null,
    groupBy: by,
    maxRows: MAX_ROWS,
  });
  if (more) throw new CliError(`more than ${MAX_ROWS} rows: narrow --from/--to`, 1);
  const lines = await reportLines(db, by, rows);
  const period = { from: range.from.toISOString(), to: range.to.toISOString() };
  if (args.json) {
    console.log(terminalJson({ ...period, by, client: args.client ?? null, rows: lines }));
  } else if (args.csv) {
    console.log(csv(by, lines));
  } else {
    const table = formatTable(
      [by.toUpperCase(), ...FIGURE_HEADERS],
      lines.map((line) => [groupCell(by, line), ...csvFigures(line)]),
    );
    const body = lines.length > 0 ? table : '(no requests in this period)';
    console.log(`${body}\nfrom ${period.from} to ${period.to}`);
  }
}
