// What the operator CLI (usage.cli.ts) accepts, shared with its commands.

export const USAGE_GROUPS = ['client', 'operation', 'status'] as const;
export type UsageCliGroup = (typeof USAGE_GROUPS)[number];

export const HELP = `usage: npm run usage -- [options]

Requests counted by the gateways over a period, summed by client, operation or status: requests,
4xx, 5xx, 429, bytes out and latency percentiles (ms). Counts reach the report within a minute.

options:
  --client KEY            one client's requests only (default: every client; "(none)" stands for
                          requests no client authenticated)
  --from ISO              start, rounded down to its hour (default: 24 hours before --to)
  --to ISO                end, rounded up to the next hour, excluded (default: now)
  --by client|operation|status
                          one row per client (default), operation or HTTP status
  --json                  machine-readable output (errors too, on stderr)
  --csv                   comma-separated values with a header line
  -h, --help              this text

Exit codes: 0 done, 1 refused (database error), 2 usage error or unknown client.`;

export interface CliArgs {
  client?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  by?: string | undefined;
  json: boolean;
  csv: boolean;
}
