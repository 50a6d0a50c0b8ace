// GET /usage: the calling client's own usage, as the gateways counted it (decision 0015), with its
// rate limits and what is left of each window. Any valid token; a client never sees another's.
import { defineEndpoint } from '../../endpoint-services.js';
import { validationError } from '../../http/errors.js';
import { remainingOf, type WindowName } from '../../http/rate-limit/rate-limit-headers.js';
import { limitsOf } from '../../http/rate-limit/rate-limit.js';
import { readUsage, usageRange } from './usage.read.js';
import { MAX_RANGE_DAYS, MAX_ROWS, usageQuery, usageResponse } from './usage.schemas.js';

export const getUsageEndpoint = defineEndpoint({
  operationId: 'getUsage',
  group: 'usage',
  method: 'GET',
  path: '/usage',
  summary: 'İstemcinin kendi kullanımı, sınırları ve kalan hakları',
  description: `Requests of this client by hour or UTC day, optionally by operation or status: counts are visible within a minute, token requests count under the client that authenticated. At most ${MAX_RANGE_DAYS} days and ${MAX_ROWS} rows: a wider range, or one with more rows, is 400 VALIDATION_ERROR (ask for days, or a shorter range). This call counts against the rate limits as any other.`,
  access: null,
  query: usageQuery,
  response: usageResponse,
  tables: [],
  handle: async ({ query, auth, services }) => {
    const caller = auth();
    const range = usageRange(query, query.granularity, MAX_RANGE_DAYS);
    if ('field' in range) throw validationError([range]);
    const limits = limitsOf(caller, services.usage.rateLimits);
    const groupBy = query.group_by ?? null;
    const [report, windows] = await Promise.all([
      readUsage(services.usage.pool, {
        clientId: caller.clientId,
        ...range,
        granularity: query.granularity,
        groupBy,
        maxRows: MAX_ROWS,
      }),
      // Redis away: the admission has already let the request through without limits (or
      // refused it), and counted the failure; here there is nothing true to report.
      services.usage.limiter.peek(caller.clientId, limits).catch(() => null),
    ]);
    if (report.more) {
      throw validationError([
        {
          field: 'from',
          message: `En fazla ${MAX_ROWS} satır; aralığı daraltın veya günlük isteyin.`,
        },
      ]);
    }
    const left = (name: WindowName) => {
      const state = windows?.find((window) => window.name === name);
      return state ? remainingOf(state) : null;
    };
    return {
      success: true,
      data: {
        from: range.from.toISOString(),
        to: range.to.toISOString(),
        granularity: query.granularity,
        limits,
        remaining: { minute: left('minute'), hour: left('hour'), day: left('day') },
        rows: report.rows.map(({ group, period_start, ...figures }) => ({
          period_start: period_start ?? range.from.toISOString(),
          ...(groupBy === 'operation' ? { operation: String(group) } : {}),
          ...(groupBy === 'status' ? { status: Number(group) } : {}),
          ...figures,
        })),
      },
    };
  },
});
