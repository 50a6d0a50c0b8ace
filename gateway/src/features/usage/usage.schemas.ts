// GET /usage's query and answer (usage.endpoints.ts), from which the OpenAPI document is
// generated.
import { z } from 'zod';

/** The widest range one call may ask for, in days: the counts' default retention. */
export const MAX_RANGE_DAYS = 400;
/** The most rows one answer holds. */
export const MAX_ROWS = 10_000;

const instant = (description: string, example: string) =>
  z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description, examples: [example] });

export const usageQuery = z.object({
  from: instant(
    'ISO instant, rounded down to its hour (its UTC day for granularity=day); default: 24 hours before `to`',
    '2026-11-25T00:00:00Z',
  ),
  to: instant(
    'ISO instant, rounded up to the next hour (UTC day), excluded; default: now',
    '2026-11-26T00:00:00Z',
  ),
  granularity: z
    .enum(['hour', 'day'])
    .default('hour')
    .meta({ description: 'a row per hour or per UTC day' }),
  group_by: z.enum(['operation', 'status']).optional().meta({
    description: 'rows per operation or per HTTP status within each period; none: totals',
  }),
});
export type UsageQueryInput = z.infer<typeof usageQuery>;

const perWindow = <T extends z.ZodType>(value: T, description: string) =>
  z.object({ minute: value, hour: value, day: value }).meta({ description });

const ROW_EXAMPLE = {
  period_start: '2026-11-25T09:00:00.000Z',
  operation: 'GET /api/v1/members/{id}',
  requests: 412,
  client_errors: 9,
  server_errors: 0,
  rate_limited: 3,
  bytes_out: 389_120,
  latency_ms: { p50: 7.2, p95: 23.5, p99: 61.8 },
};

const usageRow = z
  .object({
    period_start: z.iso.datetime(),
    operation: z.string().optional().meta({
      description:
        'with group_by=operation: the method and the path as this document writes it; "<METHOD> unmatched" for a path no operation has',
    }),
    status: z.int().optional().meta({ description: 'with group_by=status: the HTTP status' }),
    requests: z.int(),
    client_errors: z.int().meta({ description: '4xx answers, 429 included' }),
    server_errors: z.int().meta({ description: '5xx answers' }),
    rate_limited: z.int().meta({ description: '429 answers' }),
    bytes_out: z.int().meta({ description: 'bytes of the answers’ bodies' }),
    latency_ms: z
      .object({
        p50: z.number().nullable(),
        p95: z.number().nullable(),
        p99: z.number().nullable(),
      })
      .meta({
        description:
          "percentiles read off OpenTelemetry's default buckets (0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000 ms), linear within a bucket",
      }),
  })
  .meta({ id: 'UsageRow', examples: [ROW_EXAMPLE] });

export const usageResponse = z
  .object({
    success: z.boolean(),
    data: z.object({
      from: z.iso.datetime(),
      to: z.iso.datetime(),
      granularity: z.enum(['hour', 'day']),
      limits: perWindow(z.int(), "the client's rate limits per window"),
      remaining: perWindow(
        z.int().nullable(),
        'requests left in each current window, this call counted; null when the limits could not be read',
      ),
      rows: z.array(usageRow).meta({
        description: `the periods with requests, oldest first (${MAX_ROWS} rows or fewer)`,
      }),
    }),
  })
  .meta({
    id: 'UsageResponse',
    examples: [
      {
        success: true,
        data: {
          from: '2026-11-25T00:00:00.000Z',
          to: '2026-11-26T00:00:00.000Z',
          granularity: 'hour',
          limits: { minute: 60, hour: 1000, day: 10000 },
          remaining: { minute: 59, hour: 871, day: 9120 },
          rows: [ROW_EXAMPLE],
        },
      },
    ],
  });
