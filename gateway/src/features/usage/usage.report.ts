// One client's usage report, as GET /usage answers it and the portal shows and downloads it: the
// counts of the range asked, the client's limits and what is left of each window now.
import type { EndpointServices } from '../../endpoint-services.js';
import type { AuthContext } from '../../trust/access-tokens.js';
import { validationError } from '../../http/errors.js';
import { remainingOf, type WindowName } from '../../http/rate-limit/rate-limit-headers.js';
import { limitsOf } from '../../http/rate-limit/rate-limit.js';
import { readUsage, usageRange } from './usage.read.js';
import { MAX_RANGE_DAYS, MAX_ROWS, type UsageQueryInput } from './usage.schemas.js';

export type UsageServices = EndpointServices['usage'];

/** Whose report: the client and its own limits (null: the deployment's defaults). */
export type UsageCaller = Pick<AuthContext, 'clientId' | 'rateLimits'>;

/** The client's limits and what is left of each window; null where Redis could not say. */
export async function limitsLeft(usage: UsageServices, caller: UsageCaller) {
  const limits = limitsOf(caller, usage.rateLimits);
  // Redis away: the admission has already let the request through without limits (or refused
  // it), and counted the failure; here there is nothing true to report.
  const windows = await usage.limiter.peek(caller.clientId, limits).catch(() => null);
  const left = (name: WindowName) => {
    const state = windows?.find((window) => window.name === name);
    return state ? remainingOf(state) : null;
  };
  return { limits, remaining: { minute: left('minute'), hour: left('hour'), day: left('day') } };
}

/** GET /usage's `data`; a range too wide or too many rows is a VALIDATION_ERROR. */
export async function clientUsageReport(
  usage: UsageServices,
  caller: UsageCaller,
  query: UsageQueryInput,
) {
  const range = usageRange(query, query.granularity, MAX_RANGE_DAYS);
  if ('field' in range) throw validationError([range]);
  const groupBy = query.group_by ?? null;
  const [report, left] = await Promise.all([
    readUsage(usage.pool, {
      clientId: caller.clientId,
      ...range,
      granularity: query.granularity,
      groupBy,
      maxRows: MAX_ROWS,
    }),
    limitsLeft(usage, caller),
  ]);
  if (report.more) {
    throw validationError([
      {
        field: 'from',
        message: `En fazla ${MAX_ROWS} satır; aralığı daraltın veya günlük isteyin.`,
      },
    ]);
  }
  return {
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    granularity: query.granularity,
    ...left,
    rows: report.rows.map(({ group, period_start, ...figures }) => ({
      period_start: period_start ?? range.from.toISOString(),
      ...(groupBy === 'operation' ? { operation: String(group) } : {}),
      ...(groupBy === 'status' ? { status: Number(group) } : {}),
      ...figures,
    })),
  };
}
